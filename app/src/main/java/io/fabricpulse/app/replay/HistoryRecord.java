package io.fabricpulse.app.replay;

import io.fabricpulse.schemas.topics.TopicSpec;
import java.util.Comparator;
import org.apache.avro.specific.SpecificRecord;

/**
 * One decoded record of a topic's history: where it was (topic, partition, offset), its event time
 * (the record timestamp, which the collectors set to the sample time), its key and value.
 *
 * @param topicOrder position of the topic in the export's topic list: ties in time are broken by
 *     it, then by key (cluster/node: the order the collectors of a cycle are listed in), then by
 *     partition and offset, so the merged order never depends on how the reads interleaved
 */
public record HistoryRecord(
    TopicSpec topic,
    int topicOrder,
    int partition,
    long offset,
    long time,
    String key,
    SpecificRecord value) {

  /** Event time, then topic, key, partition and offset: a total order, the same on every run. */
  public static final Comparator<HistoryRecord> EVENT_TIME_ORDER =
      Comparator.comparingLong(HistoryRecord::time)
          .thenComparingInt(HistoryRecord::topicOrder)
          .thenComparing(HistoryRecord::key, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingInt(HistoryRecord::partition)
          .thenComparingLong(HistoryRecord::offset);
}
