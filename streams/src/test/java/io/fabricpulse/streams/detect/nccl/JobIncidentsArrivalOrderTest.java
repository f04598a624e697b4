package io.fabricpulse.streams.detect.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.testing.DetectorStories;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Job 4720 runs on gpu017 and gpu018 without GPUDirect RDMA; live, each host is judged by its own
 * host task (its partition of the NCCL inputs), and the job stage merges what the two tasks send
 * through {@code nccl-alerts-by-cluster} in whatever order they arrive. These stories take the real
 * records the host stage sends (host alerts and progress ticks), one host per task, and feed the
 * job stage alone with them in several arrival orders: the job's page must not depend on the order.
 * gpu018 logged its transport one second before gpu017, so the page names gpu018.
 */
class JobIncidentsArrivalOrderTest extends DetectorStories {

  private static final String REPARTITION =
      NcclDriver.APP_ID + "-" + NcclTransportDetector.ALERTS_BY_CLUSTER + "-repartition";
  private static final String IN = "nccl-job-stage-in";
  private static final String OUT = "nccl-job-stage-out";

  /** Job 4720 on {@code host}: IB with GDR Disabled, from {@code second} on. */
  private List<TestRecord<String, Alert>> hostStageRecords(String host, int second, String task) {
    try (NcclDriver d = new NcclDriver(defaults, stateDir.resolve("host-" + host), "h-" + host)) {
      var repartition =
          d.driver.createOutputTopic(
              REPARTITION, new StringDeserializer(), d.serdes.alert().deserializer());
      NcclLines lines = NcclLines.of(host, "4720");
      d.pipe(
          lines,
          lines.version(second),
          lines.netIbUsing(second, "mlx5_0", "mlx5_1"),
          lines.gdrHca(second + 1, 0, "mlx5_0", false),
          lines.usingNetwork(second + 2, "IB"));
      for (int s = second + 3; s <= 120; s++) {
        d.tick(s);
      }
      List<TestRecord<String, Alert>> sent = new ArrayList<>();
      for (TestRecord<String, Alert> r : repartition.readRecordsToList()) {
        RecordHeaders headers = new RecordHeaders();
        r.headers().forEach(h -> headers.add(h.key(), h.value()));
        headers.remove(JobStageProgress.SOURCE_HEADER);
        headers.add(JobStageProgress.headers(task).lastHeader(JobStageProgress.SOURCE_HEADER));
        sent.add(new TestRecord<>(r.key(), r.value(), headers, r.timestamp()));
      }
      return sent;
    }
  }

  /** Feeds the job stage alone (two host tasks), in {@code arrival} order; returns its pages. */
  private List<TestRecord<String, Alert>> jobStage(
      String scope, List<TestRecord<String, Alert>> arrival) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "nccl-job-order-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("job-" + scope).toString());
    props.put(StreamsSettings.RATES_PARTITIONS, "2"); // a deployed application: two host tasks
    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://job-" + scope);
    StreamsBuilder builder = new StreamsBuilder();
    NcclTransportDetector.addJobStageStores(
        new DetectorInputs(builder, FabricTopics.defaults(), serdes));
    builder.stream(IN, Consumed.with(Serdes.String(), serdes.alert()).withName("job-stage-in"))
        .process(
            () -> new JobIncidents(2),
            Named.as("nccl-job-incidents"),
            NcclTransportDetector.JOB_INCIDENT_STORE,
            NcclTransportDetector.JOB_PENDING_STORE,
            NcclTransportDetector.JOB_PROGRESS_STORE)
        .to(OUT, Produced.with(Serdes.String(), serdes.alert()).withName("job-stage-out"));
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
      TestInputTopic<String, Alert> in =
          driver.createInputTopic(IN, new StringSerializer(), serdes.alert().serializer());
      arrival.forEach(in::pipeInput);
      return driver
          .createOutputTopic(OUT, new StringDeserializer(), serdes.alert().deserializer())
          .readRecordsToList();
    }
  }

  @Test
  void theJobsPageNamesTheEarliestHostWhicheverTaskArrivesFirst() {
    List<TestRecord<String, Alert>> gpu017 = hostStageRecords("gpu017", 1, "nccl-0");
    List<TestRecord<String, Alert>> gpu018 = hostStageRecords("gpu018", 0, "nccl-1");
    // each task sent its host's GDR_FALLBACK among its progress ticks
    assertEquals(1, gpu017.stream().filter(r -> r.value() != null).count());
    assertEquals(1, gpu018.stream().filter(r -> r.value() != null).count());

    List<TestRecord<String, Alert>> later017First = new ArrayList<>(gpu017);
    later017First.addAll(gpu018);
    List<TestRecord<String, Alert>> earlier018First = new ArrayList<>(gpu018);
    earlier018First.addAll(gpu017);
    List<TestRecord<String, Alert>> interleaved = new ArrayList<>();
    for (int i = 0; i < Math.max(gpu017.size(), gpu018.size()); i++) {
      if (i < gpu017.size()) {
        interleaved.add(gpu017.get(i));
      }
      if (i < gpu018.size()) {
        interleaved.add(gpu018.get(i));
      }
    }

    List<TestRecord<String, Alert>> pages = jobStage("a", later017First);
    assertEquals(1, pages.size(), pages.toString());
    Alert page = pages.get(0).value();
    assertEquals(AlertState.FIRING, page.getState());
    assertEquals(AlertKind.GDR_FALLBACK, page.getKind());
    assertEquals("gpu018", page.getNode());
    assertEquals("4720", page.getJob());
    assertEquals(Instant.ofEpochMilli(NcclLines.T0 + 1000), page.getStartedAt());
    assertEquals("gpu018", page.getEvidence().get(JobIncidents.HOSTS));
    assertEquals(pages, jobStage("b", earlier018First));
    assertEquals(pages, jobStage("c", interleaved));
  }

  @Test
  void withoutTheOtherTasksProgressNoHostIsJudged() {
    // gpu017's task has reported far past its alert; gpu018's task has not reported at all: an
    // earlier host alert of the job may still come from it, so the job stage waits
    List<TestRecord<String, Alert>> gpu017 = hostStageRecords("gpu017", 1, "nccl-0");
    assertEquals(List.of(), jobStage("wait", gpu017));
    List<TestRecord<String, Alert>> both = new ArrayList<>(gpu017);
    both.addAll(hostStageRecords("gpu018", 0, "nccl-1"));
    assertNotEquals(List.of(), jobStage("both", both));
  }
}
