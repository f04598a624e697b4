package io.fabricpulse.streams.detect.ecn;

import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What the windowed ECN conditions remember about one port for one rule (event times in ms, {@link
 * #NONE} when unset). Kept in a changelogged store, so a restart continues the windows.
 *
 * @param pausedSince start of the current run of samples paused within the ecn_not_effective band
 * @param lastNotificationAt latest sample where an ECN/CNP counter rose (marks, CNPs sent/handled)
 * @param notificationSeenAt latest sample that carried a usable ECN/CNP counter at all
 * @param marksWithoutCnpSince first sample of the current run of ECN marks received with no CNP
 *     sent since
 */
record EcnWindow(
    long pausedSince, long lastNotificationAt, long notificationSeenAt, long marksWithoutCnpSince) {

  static final long NONE = Long.MIN_VALUE;
  static final EcnWindow EMPTY = new EcnWindow(NONE, NONE, NONE, NONE);

  EcnWindow withPausedSince(long v) {
    return new EcnWindow(v, lastNotificationAt, notificationSeenAt, marksWithoutCnpSince);
  }

  EcnWindow withNotification(long seenAt, boolean rose) {
    return new EcnWindow(
        pausedSince, rose ? seenAt : lastNotificationAt, seenAt, marksWithoutCnpSince);
  }

  EcnWindow withMarksWithoutCnpSince(long v) {
    return new EcnWindow(pausedSince, lastNotificationAt, notificationSeenAt, v);
  }

  /** Fixed 33-byte form: a version byte and the four longs. */
  static final class EcnWindowSerde implements Serde<EcnWindow> {
    private static final byte VERSION = 1;

    @Override
    public Serializer<EcnWindow> serializer() {
      return (topic, w) ->
          w == null
              ? null
              : ByteBuffer.allocate(33)
                  .put(VERSION)
                  .putLong(w.pausedSince())
                  .putLong(w.lastNotificationAt())
                  .putLong(w.notificationSeenAt())
                  .putLong(w.marksWithoutCnpSince())
                  .array();
    }

    @Override
    public Deserializer<EcnWindow> deserializer() {
      return (topic, bytes) -> {
        if (bytes == null) {
          return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != VERSION) {
          throw new IllegalStateException("unknown ECN window version " + version);
        }
        return new EcnWindow(b.getLong(), b.getLong(), b.getLong(), b.getLong());
      };
    }
  }
}
