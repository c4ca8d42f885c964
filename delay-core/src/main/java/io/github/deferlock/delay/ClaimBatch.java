package io.github.deferlock.delay;

import java.util.List;

/**
 * What one claim script call returned, for the worker's timing.
 *
 * @param jobs the claimed jobs (undecodable ones are already in the dead letters)
 * @param serverNowMicros the server time of the claim
 * @param nextWakeMs the earliest due time or visibility deadline left in Redis (epoch ms), -1 when none
 * @param acked one result per ack that rode along with the claim, in order: true when acked, false when stale
 */
record ClaimBatch<T>(List<Job<T>> jobs, long serverNowMicros, long nextWakeMs, List<Boolean> acked) {}
