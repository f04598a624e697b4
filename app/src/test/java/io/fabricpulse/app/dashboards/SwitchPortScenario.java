package io.fabricpulse.app.dashboards;

import io.fabricpulse.app.testing.FaultScenario;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.iblinkinfo.IblinkinfoParser;
import io.fabricpulse.collectors.switchports.SwitchCounterQuery;
import io.fabricpulse.collectors.switchports.SwitchCounterSweep;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.collectors.topology.TopologyDiffer;
import io.fabricpulse.collectors.topology.TopologySnapshot;
import io.fabricpulse.collectors.topology.TopologySweep;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The fabric side of the dashboards' store: the ibsim fabric of the collectors' captures (leaf01,
 * leaf02, spine01, gpu001-gpu003; collectors/testdata/iblinkinfo and perfquery, origin in their
 * README) swept by the fabric role's own code: iblinkinfo parsed into the topology (every link
 * "Could be 12X", leaf01 port 8 <-> spine01 port 2 at 1X), and leaf01's ports read every 10 s with
 * the role's perfquery sweep, answered with the captured perfquery text of leaf01 (LID 1; the other
 * switches do not answer, as an unreachable PMA, and are reported and skipped). The captured
 * counters are advanced per sweep to make three faults on leaf01: symbol errors and link error
 * recovery on the 1X ISL (port 8), xmit wait on the other ISL (port 7, 19 % of 10 Gb/s), three link
 * downs on the host link to gpu001 (port 1), which resolves a minute after the last one (12 sweeps,
 * 0-110 s). Everything goes through the whole {@link FabricTopology} (rate stage, switch-port
 * detectors, topology join) in a TopologyTestDriver; the records of every topic are ready to be
 * produced to a broker, in the wire format of {@code registry}.
 */
final class SwitchPortScenario {

  // Its own cluster: the fault scenario's fleet (cluster demo) has a fat tree with a leaf01 too.
  static final String CLUSTER = "ibsim";
  static final int SWEEPS = 12;
  static final long SWEEP_SECONDS = 10;

  private static final String IBLINKINFO = "iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt";
  private static final String PERFQUERY_X = "perfquery/ibsim-perfquery-x-leaf01-ports-1-2-7-8.txt";
  private static final String PERFQUERY = "perfquery/ibsim-perfquery-leaf01-ports-1-2-7-8.txt";

  final List<ProducerRecord<String, byte[]>> records = new ArrayList<>();

  private SwitchPortScenario() {}

  static SwitchPortScenario run(Instant start, String registry, Path rules, Path stateDir)
      throws IOException, RuleValidationException {
    SwitchPortScenario scenario = new SwitchPortScenario();
    FabricTopics topics = FabricTopics.defaults();
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, FabricTopology.APPLICATION_ID);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir).toString());
    var topology =
        FabricTopology.build(topics, registry, RuleSet.load(rules), RateConfig.defaults(), props);
    ParseResult<PortLink> lines =
        new IblinkinfoParser().parse(IBLINKINFO, Samples.read(IBLINKINFO));
    if (!lines.malformed().isEmpty()) {
      throw new IllegalStateException("iblinkinfo capture: " + lines.malformed());
    }
    AdvancedLeaf01 leaf01 = new AdvancedLeaf01();
    SwitchCounterSweep sweep = new SwitchCounterSweep(leaf01);
    Set<TopicSpec> inputs = Set.of(topics.topology(), topics.switchCounters());
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, start)) {
      for (int k = 0; k < SWEEPS; k++) {
        Instant time = start.plusSeconds(k * SWEEP_SECONDS);
        List<SpecificRecord> out = new ArrayList<>();
        if (k == 0) {
          // the role publishes the baseline, then only what changes (FabricTask)
          TopologySweep s = new TopologySweep(CLUSTER, "sm01", TopologySource.IBLINKINFO, 1, time);
          TopologySnapshot snapshot =
              TopologySnapshot.of(s, IBLINKINFO, lines.records()).records().get(0);
          out.addAll(TopologyDiffer.baseline(snapshot).upserts());
        }
        leaf01.sweep = k;
        ParseResult<NodeCounters> counters;
        try {
          counters = sweep.sweep(CLUSTER, time, lines.records());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
        if (counters.records().size() != 1) {
          throw new IllegalStateException("leaf01 not read: " + counters.malformed());
        }
        out.addAll(counters.records());
        for (SpecificRecord r : out) {
          TopicSpec spec = topics.topicOf(r);
          String key =
              r instanceof FabricLink link
                  ? link.getLinkId()
                  : CLUSTER + "/" + ((NodeCounters) r).getNode();
          byte[] value = serializer(spec, registry).serialize(spec.name(), r);
          long ms = time.toEpochMilli();
          TestInputTopic<String, byte[]> in =
              driver.createInputTopic(
                  spec.name(), new StringSerializer(), new ByteArraySerializer());
          in.pipeInput(key, value, ms);
          scenario.records.add(new ProducerRecord<>(spec.name(), null, ms, key, value));
        }
      }
      scenario.records.addAll(FaultScenario.outputs(driver, topics, inputs));
    }
    return scenario;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Serializer<SpecificRecord> serializer(TopicSpec spec, String registry) {
    return (Serializer) AvroSerde.forValues(spec.valueType(), registry).serializer();
  }

  /**
   * leaf01's captured perfquery answers (LID 1), with counters advanced by sweep: port 8 +150
   * symbol errors (15/s) and +2 link error recoveries (12/min) per sweep, port 7 +300,000,000 xmit
   * wait ticks per sweep (30 M ticks/s x 8 bytes x 8 / 10 Gb/s = 19 %), port 1 one more link down
   * at sweeps 2, 3 and 4, and traffic on every port.
   */
  private static final class AdvancedLeaf01 implements SwitchCounterQuery {
    int sweep;

    @Override
    public String query(int lid, List<Integer> ports, boolean extended) throws IOException {
      if (lid != 1) {
        throw new IOException("perfquery: exited with 1: ibwarn: no response from lid " + lid);
      }
      String text = Samples.read(extended ? PERFQUERY_X : PERFQUERY);
      long k = sweep;
      for (int port : List.of(1, 2, 7, 8)) {
        text = advance(text, port, "PortXmitData", 250_000_000L * k);
        text = advance(text, port, "PortRcvData", 200_000_000L * k);
      }
      if (!extended) {
        text = advance(text, 8, "SymbolErrorCounter", 150 * k);
        text = advance(text, 8, "LinkErrorRecoveryCounter", 2 * k);
        text = advance(text, 7, "PortXmitWait", 300_000_000L * k);
        text = advance(text, 1, "LinkDownedCounter", Math.max(0, Math.min(k, 4) - 1));
      }
      return text;
    }

    /** {@code text} with {@code counter} of {@code port}'s section raised by {@code by}. */
    private static String advance(String text, int port, String counter, long by) {
      Pattern section = Pattern.compile("(?m)^# Port .*port " + port + " .*$");
      Matcher head = section.matcher(text);
      if (!head.find()) {
        throw new IllegalArgumentException("no section of port " + port);
      }
      int end = text.indexOf("\n# Port", head.end());
      end = end < 0 ? text.length() : end;
      String body = text.substring(head.end(), end);
      Matcher m = Pattern.compile("(?m)^(" + counter + ":\\.+)(\\d+)$").matcher(body);
      if (!m.find()) {
        return text; // this query prints no such counter
      }
      String raised = m.group(1) + (Long.parseLong(m.group(2)) + by);
      body = body.substring(0, m.start()) + raised + body.substring(m.end());
      return text.substring(0, head.end()) + body + text.substring(end);
    }
  }
}
