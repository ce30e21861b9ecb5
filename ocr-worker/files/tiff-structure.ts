/**
 * Checks a TIFF's directory structure before utif2 parses it: utif2 follows directory chains and
 * tag counts as the file states them, so a loop in the chain or a tag claiming a billion values
 * would hang or exhaust the process. Returns the number of top-level directories, or a reason.
 */
export const maxTiffDirectories = 10_000;

const typeSize: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };
/** Tags whose values point at further directories (SubIFDs, Exif, GPS, Interoperability). */
const directoryTags = new Set([330, 34665, 34853, 40965]);

export function checkTiffStructure(bytes: Uint8Array): { directories: number } | { problem: string } {
  if (bytes.length < 8) return { problem: 'too short' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = bytes[0] === 0x49;
  const u16 = (at: number): number => view.getUint16(at, le);
  const u32 = (at: number): number => view.getUint32(at, le);
  const seen = new Set<number>();

  const walk = (offset: number, depth: number): string | undefined => {
    if (seen.has(offset)) return 'a directory loop';
    seen.add(offset);
    if (seen.size > maxTiffDirectories) return `more than ${maxTiffDirectories} directories`;
    if (offset < 8 || offset + 2 > bytes.length) return 'a directory outside the file';
    const entries = u16(offset);
    if (offset + 2 + entries * 12 + 4 > bytes.length) return 'a truncated directory';
    for (let i = 0; i < entries; i++) {
      const at = offset + 2 + i * 12;
      const tag = u16(at);
      const size = (typeSize[u16(at + 2)] ?? 0) * u32(at + 4);
      if (size > 4 && u32(at + 8) + size > bytes.length) return 'a tag whose values lie outside the file';
      if (directoryTags.has(tag) && depth < 2) {
        const count = u32(at + 4);
        for (let j = 0; j < count; j++) {
          const problem = walk(count === 1 ? u32(at + 8) : u32(u32(at + 8) + 4 * j), depth + 1);
          if (problem) return problem;
        }
      }
    }
    return undefined;
  };

  let directories = 0;
  for (let offset = u32(4); offset !== 0; offset = u32(offset + 2 + u16(offset) * 12)) {
    const problem = walk(offset, 0);
    if (problem) return { problem };
    directories++;
  }
  return { directories };
}
