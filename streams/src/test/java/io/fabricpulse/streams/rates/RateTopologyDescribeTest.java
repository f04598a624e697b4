package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.ValueSerdes;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Renaming a node, store or topic of the rate stage must be a conscious change: it is here. */
class RateTopologyDescribeTest {

  private static final ValueSerdes SERDES =
      ValueSerdes.registry("mock://" + RateTopologyDescribeTest.class.getName());

  @Test
  void everyNodeStoreAndTopicIsNamedExplicitly() {
    String described =
        RateTopology.build(FabricTopics.defaults(), SERDES, RateConfig.defaults())
            .describe()
            .toString();
    assertEquals(
        """
        Topologies:
           Sub-topology: 0
            Source: rates-source-ecn (topics: [fabric.raw.ecn])
              --> rates-compute
            Source: rates-source-pfc (topics: [fabric.raw.pfc])
              --> rates-compute
            Source: rates-source-port-counters (topics: [fabric.raw.port-counters])
              --> rates-compute
            Source: rates-source-switch-counters (topics: [fabric.raw.switch-counters])
              --> rates-compute
            Processor: rates-compute (stores: [rates-last-sample])
              --> rates-sink-dlq, rates-sink-rates
              <-- rates-source-port-counters, rates-source-pfc, rates-source-ecn, rates-source-switch-counters
            Sink: rates-sink-dlq (topic: fabric.dlq)
              <-- rates-compute
            Sink: rates-sink-rates (topic: fabric.rates)
              <-- rates-compute

        """,
        described);
  }

  @Test
  void ratesWithAnotherPartitionCountThanTheRawTopicsAreRefused() {
    FabricTopics defaults = FabricTopics.defaults();
    FabricTopics skewed =
        new FabricTopics(
            defaults.portCounters(),
            defaults.pfc(),
            defaults.ecn(),
            defaults.sm(),
            defaults.gpu(),
            defaults.xid(),
            defaults.nccl(),
            defaults.rates().withPartitions(12),
            defaults.ncclTransport(),
            defaults.alerts(),
            defaults.alertsActive(),
            defaults.deadLetters(),
            defaults.topology(),
            defaults.topologyChanges(),
            defaults.switchCounters(),
            defaults.ibdiagnet());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RateTopology.build(skewed, SERDES, RateConfig.defaults()));
    assertEquals(
        "fabric.rates has 12 partitions but fabric.raw.port-counters has 6: the rate stage keeps"
            + " the raw key, so both need the same count",
        e.getMessage());
  }

  @Test
  void replayPrefixAndSourceSelectionShapeTheSameNamedTopology() {
    String described =
        RateTopology.build(
                FabricTopics.defaults("replay.incident-42.", 3),
                SERDES,
                new RateConfig(EnumSet.of(RateSource.PORT), 0.5))
            .describe()
            .toString();
    assertEquals(
        """
        Topologies:
           Sub-topology: 0
            Source: rates-source-port-counters (topics: [replay.incident-42.fabric.raw.port-counters])
              --> rates-compute
            Processor: rates-compute (stores: [rates-last-sample])
              --> rates-sink-dlq, rates-sink-rates
              <-- rates-source-port-counters
            Sink: rates-sink-dlq (topic: replay.incident-42.fabric.dlq)
              <-- rates-compute
            Sink: rates-sink-rates (topic: replay.incident-42.fabric.rates)
              <-- rates-compute

        """,
        described);
  }
}
