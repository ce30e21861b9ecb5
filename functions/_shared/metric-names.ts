/**
 * The names under which functions publish metrics (observability.ts) and alarms find them
 * (infra/monitoring.ts): namespace `Maktaba`, dimensions `service` and `function`.
 */
export const metricsNamespace = 'Maktaba';
export const serviceName = 'maktaba';

/** The business metrics. */
export const metricNames = {
  /** Per HTTP response: 1 for a 4xx, else 0 (its sum is the count, its average the share of requests). */
  http4xx: 'Http4xx',
  /** Per HTTP response: 1 for a 5xx or a failed invocation, else 0. */
  http5xx: 'Http5xx',
  /** Per audio-worker invocation: messages that failed (retried, dropped, or failing their job). */
  audioMessagesFailed: 'AudioMessagesFailed',
  /** Audio jobs marked failed after their message's last try. */
  audioJobsFailed: 'AudioJobsFailed',
  /** OCR page results accepted by `POST /ocr/result/page`. */
  ocrPagesReported: 'OcrPagesReported',
  /** Per billing-worker run, in seconds: how long the oldest usage log has waited for its invoice (0: none waits). */
  oldestPendingInvoice: 'OldestPendingInvoiceSeconds',
  /** Overage invoices made by the billing worker. */
  overageInvoiced: 'OverageInvoiced',
  /** Usage logs settled `invoice_failed` after the last attempt. */
  overageInvoicesFailed: 'OverageInvoicesFailed',
  /** Usage logs settled `no_customer`: overage owed by a user with no Stripe customer to charge. */
  overageWithoutCustomer: 'OverageWithoutCustomer',
  /** Per billing-worker run, in seconds: how long the oldest completion has owed its usage record (0: none owed; lib/billing/owed-usage.ts). */
  oldestOwedUsage: 'OldestOwedUsageSeconds',
  /** Owed usages the billing worker recorded (completions whose callback could not). */
  owedUsageBilled: 'OwedUsageBilled',
  /** Per audio-files-sync invocation: audio files whose record could not be settled (their messages are retried). */
  audioFilesUnsettled: 'AudioFilesUnsettled',
  /** Per search-indexer invocation: pages written to the search index. */
  searchPagesIndexed: 'SearchPagesIndexed',
  /** Per search-indexer invocation: 1 when its batch failed (Lambda retries it), else 0. */
  searchBatchesFailed: 'SearchBatchesFailed',
} as const;

export type MetricName = (typeof metricNames)[keyof typeof metricNames];
