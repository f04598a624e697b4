package io.fabricpulse.collectors.ethtool;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class EthtoolCollectorTest {
  private final SampleContext ctx =
      SampleContext.of(new NodeIdentity("c1", "gpu017", "boot-a"), Instant.EPOCH);

  /** A source that serves fixed text, as the simulator and tests do. */
  private static EthtoolSource fixed(String text, String driver) {
    return new EthtoolSource() {
      @Override
      public String stats(String netdev) {
        return text;
      }

      @Override
      public String driver(String netdev) {
        return driver;
      }
    };
  }

  @Test
  void stormSamplePublishesPfcAndEcnRecords() {
    EthtoolCollector collector =
        new EthtoolCollector(
            fixed(resource("ethtool/mlx5-pfc-storm-prio3-synthetic.txt"), "mlx5_core"));

    ParseResult<SpecificRecord> result =
        collector.collect(ctx, "ens5f0np0", "mlx5_0", 1, Map.of("rp_cnp_ignored", 4L));

    assertEquals(List.of(), result.malformed());
    assertEquals(2, result.records().size());
    PfcPauseFrames pfc = assertInstanceOf(PfcPauseFrames.class, result.records().get(0));
    EcnMarks ecn = assertInstanceOf(EcnMarks.class, result.records().get(1));
    assertEquals("mlx5_core", pfc.getDriver());
    assertEquals(0L, pfc.getSeq());
    assertEquals(1L, ecn.getSeq());
    assertEquals(2, ecn.getCounters().size());
  }

  @Test
  void portWithoutEcnCountersPublishesNoEmptyEcnRecordAndWastesNoSequenceNumber() {
    EthtoolCollector collector =
        new EthtoolCollector(fixed(read("ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"), "mlx5_core"));

    ParseResult<SpecificRecord> result = collector.collect(ctx, "enp1s0f0", null, null, Map.of());

    assertEquals(1, result.records().size());
    assertInstanceOf(PfcPauseFrames.class, result.records().get(0));
    assertEquals(1L, ctx.nextSeq());
  }

  @Test
  void readFailureIsOneSkipNotAnException() {
    EthtoolSource failing =
        new EthtoolSource() {
          @Override
          public String stats(String netdev) throws IOException {
            throw new IOException("Operation not supported");
          }

          @Override
          public String driver(String netdev) {
            return null;
          }
        };

    ParseResult<SpecificRecord> result =
        new EthtoolCollector(failing).collect(ctx, "eth0", null, null, Map.of());

    assertEquals(List.of(), result.records());
    assertEquals(
        List.of(new Malformed("ethtool -S eth0", 0, "read failed: Operation not supported")),
        result.malformed());
  }

  @Test
  void malformedLinesArePassedOnWithTheRecords() {
    ParseResult<SpecificRecord> result =
        new EthtoolCollector(fixed(resource("ethtool/mlx5-malformed-lines-synthetic.txt"), null))
            .collect(ctx, "eth0", null, null, Map.of());

    assertEquals(7, result.malformed().size());
    PfcPauseFrames pfc = assertInstanceOf(PfcPauseFrames.class, result.records().get(0));
    assertEquals(2, pfc.getCounters().size());
  }
}
