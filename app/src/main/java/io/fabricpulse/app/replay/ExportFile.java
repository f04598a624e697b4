package io.fabricpulse.app.replay;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.json.JsonRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.RecordKeys;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * The JSON lines {@code export} writes (and {@code parse}/{@code collect --once} print), read back
 * as history: each record goes to its raw topic by type (NodeCounters by its source, a FabricLink
 * to fabric.topology keyed by its link id), with its own time as event time, keyed cluster/node, in
 * time order (equal times keep the file's order, which is the export's merge order). Derived
 * records (alerts, rates, verdicts) are skipped and counted; lines that are not records are counted
 * and skipped.
 */
public final class ExportFile {

  public record Result(
      List<HistoryRecord> records, long malformed, long derived, String firstProblem) {}

  private ExportFile() {}

  public static Result read(Path file, NodeFilter nodes) throws IOException {
    FabricTopics topics = FabricTopics.defaults();
    Map<Class<?>, TopicSpec> byType = new HashMap<>();
    for (TopicSpec t : topics.raw()) {
      byType.put(t.valueType(), t);
    }
    byType.put(PortCounters.class, topics.portCounters());
    byType.put(PfcPauseFrames.class, topics.pfc());
    byType.put(EcnMarks.class, topics.ecn());
    byType.remove(CounterRates.class);
    List<HistoryRecord> records = new ArrayList<>();
    long malformed = 0;
    long derived = 0;
    String firstProblem = null;
    long lineNo = 0;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        SpecificRecord record;
        try {
          record = JsonRecords.fromJson(line);
        } catch (IllegalArgumentException e) {
          malformed++;
          firstProblem =
              firstProblem != null ? firstProblem : file + ":" + lineNo + ": " + e.getMessage();
          continue;
        }
        TopicSpec topic =
            record instanceof NodeCounters || record instanceof FabricLink
                ? topics.topicOf(record)
                : byType.get(record.getClass());
        if (topic == null) {
          derived++;
          continue;
        }
        if (!nodes.accepts(TopicHistory.nodeOf(record))) {
          continue;
        }
        records.add(new HistoryRecord(topic, 0, 0, lineNo, time(record), key(record), record));
      }
    }
    records.sort(Comparator.comparingLong(HistoryRecord::time)); // stable: file order on ties
    return new Result(records, malformed, derived, firstProblem);
  }

  /** The key the collector publishes the record with. */
  private static String key(SpecificRecord record) {
    return RecordKeys.keyOf(record);
  }

  private static long time(SpecificRecord record) {
    Object time = field(record, "time");
    if (time instanceof Instant t) {
      return t.toEpochMilli();
    }
    throw new IllegalArgumentException(record.getSchema().getName() + " has no time");
  }

  private static Object field(SpecificRecord record, String name) {
    var field = record.getSchema().getField(name);
    return field == null ? null : record.get(field.pos());
  }
}
