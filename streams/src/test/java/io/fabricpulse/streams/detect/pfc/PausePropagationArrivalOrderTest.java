package io.fabricpulse.streams.detect.pfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PfcRates;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The propagation stage merges the storm records of several port-stage tasks (one per fabric.rates
 * partition) whose progress differs: live, a fast task's victim release can arrive before the
 * storm, from a slow task, that opens the incident folding it. These stories take the real records
 * the port stage sends into {@code pfc-storms-by-cluster} (storms, holds, releases, progress
 * ticks), give each node its own task as fabric.rates partitions would, and feed the propagation
 * stage alone with them in several arrival orders: the pages must not depend on the order.
 */
class PausePropagationArrivalOrderTest extends DetectorStories {

  private static final String NIC = "ens1f0np0";
  private static final String REPARTITION =
      PfcDriver.APP_ID + "-" + PauseStormDetector.STORMS_BY_CLUSTER + "-repartition";
  private static final String STORMS_IN = "pfc-storms-in";
  private static final String PAGES_OUT = "pfc-pages-out";

  /** The node each simulated port-stage task serves (its fabric.rates partition). */
  private static final Map<String, String> SOURCE_OF_NODE =
      Map.of("gpu007", "fabric.rates-0", "gpu008", "fabric.rates-1", "gpu009", "fabric.rates-2");

  private static Instant at(int second) {
    return Instant.ofEpochMilli(PfcRates.T0 + second * 1000L);
  }

  /**
   * The demo's storm: gpu007's NIC stalls at 1 s and sends pause frames on prio 3; gpu008 is paused
   * from 4 s and gpu009 from 5 s (they fire at 5 s and 6 s, held until 35 s and 36 s); gpu009's
   * storm is the third node's, which opens the incident. Storms stop at 20 s. With {@code
   * withThird} false gpu009 stays clean: two nodes are no incident.
   *
   * @return per task, in the order that task sent them, the records it put into the repartition
   *     topic (ticks included)
   */
  private Map<String, List<TestRecord<String, Alert>>> portStageRecords(
      String scope, boolean withThird) {
    List<TestRecord<String, Alert>> sent;
    try (PfcDriver d = new PfcDriver(defaults, stateDir.resolve("port-" + scope), scope)) {
      TestOutputTopic<String, Alert> repartition =
          d.driver.createOutputTopic(
              REPARTITION, new StringDeserializer(), d.serdes.alert().deserializer());
      for (int s = 0; s <= 90; s++) {
        boolean storm = s >= 1 && s < 20;
        d.pipe(
            PfcRates.at("gpu007", NIC, s)
                .txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0)
                .rxPaused(3, 0, 0)
                .counter("rx_prio3_bytes", 0, "bytes"));
        boolean paused8 = storm && s >= 4;
        d.pipe(PfcRates.at("gpu008", NIC, s).rxPaused(3, paused8 ? 0.9 : 0, paused8 ? 11_000 : 0));
        boolean paused9 = withThird && storm && s >= 5;
        d.pipe(PfcRates.at("gpu009", NIC, s).rxPaused(3, paused9 ? 0.9 : 0, paused9 ? 11_000 : 0));
      }
      sent = repartition.readRecordsToList();
    }
    Map<String, List<TestRecord<String, Alert>>> bySource = new java.util.TreeMap<>();
    SOURCE_OF_NODE.values().forEach(source -> bySource.put(source, new ArrayList<>()));
    for (TestRecord<String, Alert> r : sent) {
      if (r.value() == null) { // a progress tick: every task sends its own
        bySource.forEach((source, records) -> records.add(asSentBy(r, source)));
      } else {
        String source = SOURCE_OF_NODE.get(r.value().getNode());
        bySource.get(source).add(asSentBy(r, source));
      }
    }
    return bySource;
  }

  private static TestRecord<String, Alert> asSentBy(TestRecord<String, Alert> r, String source) {
    RecordHeaders headers = new RecordHeaders();
    r.headers().forEach(h -> headers.add(h.key(), h.value()));
    headers.remove(StormPage.SOURCE_HEADER);
    headers.add(StormPage.SOURCE_HEADER, source.getBytes(StandardCharsets.UTF_8));
    return new TestRecord<>(r.key(), r.value(), headers, r.timestamp());
  }

  /** Feeds the propagation stage alone, in {@code arrival} order; returns what it pages. */
  private List<TestRecord<String, Alert>> propagate(
      String scope, List<TestRecord<String, Alert>> arrival) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "pfc-order-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("prop-" + scope).toString());
    props.put(StreamsSettings.RATES_PARTITIONS, Integer.toString(SOURCE_OF_NODE.size()));
    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://" + scope);
    StreamsBuilder builder = new StreamsBuilder();
    PauseStormDetector.addPropagationStores(
        new DetectorInputs(builder, FabricTopics.defaults(), serdes));
    builder.stream(STORMS_IN, Consumed.with(Serdes.String(), serdes.alert()).withName("storms-in"))
        .mapValues(a -> (SpecificRecord) a, Named.as("storms-as-input"))
        .process(
            () -> new PausePropagationProcessor(defaults.enabledFor(Detector.PAUSE_PROPAGATION)),
            Named.as(PauseStormDetector.PROPAGATION_PROCESSOR),
            PauseStormDetector.PROPAGATION_STORE_NAMES)
        .to(PAGES_OUT, Produced.with(Serdes.String(), serdes.alert()).withName("pages-out"));
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
      TestInputTopic<String, Alert> in =
          driver.createInputTopic(STORMS_IN, new StringSerializer(), serdes.alert().serializer());
      arrival.forEach(in::pipeInput);
      return driver
          .createOutputTopic(PAGES_OUT, new StringDeserializer(), serdes.alert().deserializer())
          .readRecordsToList();
    }
  }

  /** Each task's first record (its first tick) arrives first, then the rest task by task. */
  private static List<TestRecord<String, Alert>> taskByTask(
      Map<String, List<TestRecord<String, Alert>>> bySource, String... order) {
    List<TestRecord<String, Alert>> out = new ArrayList<>();
    for (String source : order) {
      out.add(bySource.get(source).get(0));
    }
    for (String source : order) {
      List<TestRecord<String, Alert>> records = bySource.get(source);
      out.addAll(records.subList(1, records.size()));
    }
    return out;
  }

  /** The tasks' records interleaved one by one, as when they progress at the same pace. */
  private static List<TestRecord<String, Alert>> roundRobin(
      Map<String, List<TestRecord<String, Alert>>> bySource) {
    List<TestRecord<String, Alert>> out = new ArrayList<>();
    int longest = bySource.values().stream().mapToInt(List::size).max().orElse(0);
    for (int i = 0; i < longest; i++) {
      for (List<TestRecord<String, Alert>> records : bySource.values()) {
        if (i < records.size()) {
          out.add(records.get(i));
        }
      }
    }
    return out;
  }

  private static List<String> pages(List<TestRecord<String, Alert>> records) {
    return records.stream()
        .map(TestRecord::value)
        .map(a -> a.getState() + " " + a.getKind() + " " + a.getNode())
        .toList();
  }

  /**
   * What was paged, independent of the moment each page was emitted: in event-time order, then by
   * node; an incident's offset in the stage's input (where its storm happened to arrive) left out.
   */
  private static List<TestRecord<String, Alert>> byTime(List<TestRecord<String, Alert>> records) {
    return records.stream()
        .map(PausePropagationArrivalOrderTest::withoutArrivalOffset)
        .sorted(
            Comparator.<TestRecord<String, Alert>>comparingLong(TestRecord::timestamp)
                .thenComparing(r -> String.valueOf(r.value().getNode()))
                .thenComparing(r -> r.value().getAlertId()))
        .toList();
  }

  private static TestRecord<String, Alert> withoutArrivalOffset(TestRecord<String, Alert> r) {
    Alert a = Alert.newBuilder(r.value()).build();
    if (STORMS_IN.equals(a.getSourceTopic())) {
      a.setSourceOffset(null);
    }
    return new TestRecord<>(r.key(), a, r.headers(), r.timestamp());
  }

  @Test
  void victimsRecordsAndReleasesBeforeTheOriginsAndTheIncidentOpenerStillPageOriginAndIncident(
      TestInfo info) {
    Map<String, List<TestRecord<String, Alert>>> bySource =
        portStageRecords("spread-" + info.hashCode(), true);
    // gpu008's task runs ahead: its hold and its release (35 s) arrive first, before the origin's
    // storm and before gpu009's storm (6 s) that opens the incident; then gpu007's, then gpu009's
    List<TestRecord<String, Alert>> victimsFirst =
        taskByTask(bySource, "fabric.rates-1", "fabric.rates-0", "fabric.rates-2");
    List<TestRecord<String, Alert>> paged = propagate("a-" + info.hashCode(), victimsFirst);
    assertEquals(
        List.of(
            "FIRING PAUSE_STORM gpu007",
            "FIRING PAUSE_PROPAGATION null",
            "RESOLVED PAUSE_STORM gpu007",
            "RESOLVED PAUSE_PROPAGATION null"),
        pages(paged));
    Alert origin = paged.get(0).value();
    assertEquals(at(1), origin.getStartedAt());
    assertEquals(at(2), Instant.ofEpochMilli(paged.get(0).timestamp()), "the origin at once");
    Alert incident = paged.get(1).value();
    assertEquals(at(6), incident.getStartedAt(), "opened by gpu009's storm");
    assertEquals("gpu007, gpu008, gpu009", incident.getEvidence().get("nodes"));
    assertEquals("gpu007 ens1f0np0 prio 3", incident.getEvidence().get("origins"));
    assertEquals(
        "gpu008 ens1f0np0 prio 3, gpu009 ens1f0np0 prio 3", incident.getEvidence().get("victims"));
    assertEquals(at(80), paged.get(3).value().getResolvedAt());

    // the victims' tasks last, or all at one pace: the same pages at the same event times
    List<TestRecord<String, Alert>> originFirst =
        propagate(
            "b-" + info.hashCode(),
            taskByTask(bySource, "fabric.rates-0", "fabric.rates-2", "fabric.rates-1"));
    List<TestRecord<String, Alert>> incidentOpenerFirst =
        propagate(
            "c-" + info.hashCode(),
            taskByTask(bySource, "fabric.rates-2", "fabric.rates-1", "fabric.rates-0"));
    List<TestRecord<String, Alert>> samePace =
        propagate("d-" + info.hashCode(), roundRobin(bySource));
    assertEquals(byTime(paged), byTime(originFirst));
    assertEquals(byTime(paged), byTime(incidentOpenerFirst));
    assertEquals(byTime(paged), byTime(samePace));
  }

  @Test
  void aVictimAheadOfTheOriginWithoutAnIncidentIsPagedOnceAtTheEndOfItsHold(TestInfo info) {
    Map<String, List<TestRecord<String, Alert>>> bySource =
        portStageRecords("two-" + info.hashCode(), false);
    List<TestRecord<String, Alert>> paged =
        propagate(
            "a-" + info.hashCode(),
            taskByTask(bySource, "fabric.rates-1", "fabric.rates-2", "fabric.rates-0"));
    assertEquals(
        List.of(
            "FIRING PAUSE_STORM gpu007",
            "FIRING PAUSE_STORM gpu008",
            "RESOLVED PAUSE_STORM gpu007",
            "RESOLVED PAUSE_STORM gpu008"),
        pages(byTime(paged)));
    TestRecord<String, Alert> victim = byTime(paged).get(1);
    assertEquals(at(4), victim.value().getStartedAt());
    assertEquals(at(35), Instant.ofEpochMilli(victim.timestamp()), "fired at 5 s, held 30 s");
    assertEquals(byTime(paged), byTime(propagate("b-" + info.hashCode(), roundRobin(bySource))));
  }

  /**
   * The start-up case of the end-to-end flake: gpu008's task (a victim's) has sent everything, hold
   * and release included, and gpu007's too, before the propagation stage hears anything of gpu009's
   * task, whose storm opens the incident. Knowing there are three fabric.rates partitions, the
   * stage waits for the third task, and the victims are folded as at one pace.
   */
  @Test
  void aTaskHeardOfOnlyAfterTheOthersHaveSentEverythingStillFoldsTheVictims(TestInfo info) {
    Map<String, List<TestRecord<String, Alert>>> bySource =
        portStageRecords("late-" + info.hashCode(), true);
    List<TestRecord<String, Alert>> lateTask = new ArrayList<>();
    for (String source : List.of("fabric.rates-1", "fabric.rates-0", "fabric.rates-2")) {
      lateTask.addAll(bySource.get(source));
    }
    List<TestRecord<String, Alert>> paged = propagate("a-" + info.hashCode(), lateTask);
    assertEquals(
        List.of(
            "FIRING PAUSE_STORM gpu007",
            "FIRING PAUSE_PROPAGATION null",
            "RESOLVED PAUSE_STORM gpu007",
            "RESOLVED PAUSE_PROPAGATION null"),
        pages(byTime(paged)));
    assertEquals(byTime(paged), byTime(propagate("b-" + info.hashCode(), roundRobin(bySource))));
  }

  @Test
  void nothingIsJudgedBeforeEveryTaskHasPassedItsTime(TestInfo info) {
    Map<String, List<TestRecord<String, Alert>>> bySource =
        portStageRecords("wait-" + info.hashCode(), true);
    // every task ticks, then only gpu008's task sends (its hold and release): the origin's task
    // has not got past 0 s, so the release must wait rather than page gpu008
    List<TestRecord<String, Alert>> arrival = new ArrayList<>();
    bySource.values().forEach(records -> arrival.add(records.get(0)));
    List<TestRecord<String, Alert>> ahead = bySource.get("fabric.rates-1");
    arrival.addAll(ahead.subList(1, ahead.size()));
    assertTrue(propagate("a-" + info.hashCode(), arrival).isEmpty());
  }
}
