const m = await import('./write-latency.ts');
m.printWriteLatency(await m.writeLatency());
