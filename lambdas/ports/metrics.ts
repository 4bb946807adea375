// Operational metrics as the domain sees them. On Lambda the adapter emits CloudWatch embedded
// metric format (Powertools Metrics); locally it keeps the figures in memory.
export interface MetricsRecorder {
  /** Adds `value` (default 1) to a count, split by the given dimensions. */
  count(name: string, value?: number, dimensions?: Record<string, string>): void;
  milliseconds(name: string, value: number, dimensions?: Record<string, string>): void;
}
