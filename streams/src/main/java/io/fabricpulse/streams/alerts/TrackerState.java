package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;

/**
 * Tracker state of one (rule, subject) pair, kept in a changelogged store. A resolved incident,
 * kept for late observations under its own key ({@link AlertTracker}), is a state without {@code
 * firing} whose {@code cleanSince} is its {@code resolved_at}.
 *
 * @param hits holding observations in a row (before firing)
 * @param firstHitAt event time of the first of those observations (becomes started_at)
 * @param lastHitAt event time of the latest holding observation
 * @param cleanSince event time of the first clean observation after the condition held while
 *     FIRING; {@link #NOT_CLEAN} while it still holds
 * @param firing the FIRING alert, null while only pending
 */
public record TrackerState(
    int hits, long firstHitAt, long lastHitAt, long cleanSince, Alert firing) {

  public static final long NOT_CLEAN = Long.MIN_VALUE;

  boolean isFiring() {
    return firing != null;
  }
}
