package io.fabricpulse.app.replay;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Runs the production topology ({@link FabricTopology}: the rate stage and every detector, the same
 * processors {@code streams} runs) over recorded raw records as a shadow: in a Kafka Streams
 * TopologyTestDriver with its own application id, a fresh state directory and an in-process schema
 * registry of its own, so it talks to no broker, writes no live topic and shares no state. Records
 * go in one at a time in the order given, with their recorded timestamps as event time; one thread
 * and no wall clock, so the same records and rules give the same alerts every time.
 */
public final class ReplayEngine {
  public static final String APPLICATION_ID = FabricTopology.APPLICATION_ID + "-replay";

  /** What a replay produced. */
  public record Output(
      List<ReplayedAlert> alerts, Map<String, List<NodeRates>> ratesByNode, long deadLetters) {}

  private ReplayEngine() {}

  /**
   * @param records the raw records, in the order to process them
   * @param keepRatesFrom NodeRates at or after this time are kept (per node) for the timeline
   * @param rulesHash stamped on every alert as label {@link RulesHash#LABEL}
   */
  public static Output run(
      List<HistoryRecord> records,
      RuleSet rules,
      String rulesHash,
      Instant keepRatesFrom,
      Path scratch)
      throws IOException {
    FabricTopics topics = FabricTopics.defaults();
    String registry = "mock://replay-" + UUID.randomUUID();
    Properties props =
        StreamsSettings.offline(
            APPLICATION_ID, Files.createDirectories(scratch.resolve("replay-state")));
    DetectorSerdes serdes = DetectorSerdes.forRegistry(registry);
    List<ReplayedAlert> alerts = new ArrayList<>();
    Map<String, List<NodeRates>> rates = new LinkedHashMap<>();
    long deadLetters = 0;
    long start = records.isEmpty() ? 0 : records.get(0).time();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            FabricTopology.build(topics, registry, rules, RateConfig.defaults(), props),
            props,
            Instant.ofEpochMilli(start))) {
      Map<String, TestInputTopic<String, SpecificRecord>> inputs = new HashMap<>();
      TestOutputTopic<String, Alert> alertTopic =
          driver.createOutputTopic(
              topics.alerts().name(),
              new StringDeserializer(),
              serdes.value(Alert.class).deserializer());
      TestOutputTopic<String, NodeRates> rateTopic =
          driver.createOutputTopic(
              topics.rates().name(),
              new StringDeserializer(),
              serdes.value(NodeRates.class).deserializer());
      TestOutputTopic<String, DeadLetter> deadLetterTopic =
          driver.createOutputTopic(
              topics.deadLetters().name(),
              new StringDeserializer(),
              serdes.value(DeadLetter.class).deserializer());
      for (HistoryRecord r : records) {
        input(driver, inputs, r, serdes).pipeInput(r.key(), r.value(), r.time());
        while (!rateTopic.isEmpty()) {
          NodeRates node = rateTopic.readValue();
          if (!node.getTime().isBefore(keepRatesFrom)) {
            rates.computeIfAbsent(node.getNode(), n -> new ArrayList<>()).add(node);
          }
        }
        while (!alertTopic.isEmpty()) {
          TestRecord<String, Alert> a = alertTopic.readRecord();
          Alert alert = a.value();
          Map<String, String> labels = new java.util.TreeMap<>(alert.getLabels());
          labels.put(RulesHash.LABEL, rulesHash);
          alert.setLabels(labels);
          alerts.add(new ReplayedAlert(alert, a.getRecordTime()));
        }
        while (!deadLetterTopic.isEmpty()) {
          deadLetterTopic.readValue();
          deadLetters++;
        }
      }
    }
    return new Output(alerts, rates, deadLetters);
  }

  @SuppressWarnings("unchecked")
  private static TestInputTopic<String, SpecificRecord> input(
      TopologyTestDriver driver,
      Map<String, TestInputTopic<String, SpecificRecord>> inputs,
      HistoryRecord record,
      DetectorSerdes serdes) {
    Class<? extends SpecificRecord> type = record.value().getClass();
    return inputs.computeIfAbsent(
        record.topic().name() + "|" + type.getName(),
        name ->
            driver.createInputTopic(
                record.topic().name(),
                new StringSerializer(),
                (Serializer<SpecificRecord>) serdes.value(type).serializer()));
  }
}
