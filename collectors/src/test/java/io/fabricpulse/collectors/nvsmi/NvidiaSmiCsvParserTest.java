package io.fabricpulse.collectors.nvsmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaSmiCsvParserTest {
  private static final Instant NOW = Instant.parse("2026-07-14T08:12:40Z");
  private final NvidiaSmiCsvParser parser = new NvidiaSmiCsvParser();
  private final SampleContext context =
      SampleContext.of(new NodeIdentity("c1", "gpu042", "boot-9"), NOW);

  @Test
  void h100CaptureWithHeaderIdleAndLoad() {
    String name = "nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt";
    ParseResult<GpuEcc> result = parser.parseWithHeader(Samples.read(name), context, name);

    // The capture tool's own header ("collected_at: ...", lines 9-14) is not nvidia-smi output.
    assertEquals(6, result.malformed().size());
    assertEquals(9, result.malformed().get(0).line());
    assertEquals(14, result.malformed().get(5).line());
    assertEquals(2, result.records().size());
    GpuEcc idle = result.records().get(0);
    assertEquals(0, idle.getGpu());
    assertEquals("GPU-00000000-0000-0000-0000-000000000000", idle.getUuid());
    assertEquals("00000000:00:09.0", idle.getPciBusId());
    assertEquals("NVIDIA H100 80GB HBM3", idle.getName());
    assertEquals("Enabled", idle.getEccMode());
    assertEquals(0L, idle.getEccCorrectedVolatile());
    assertEquals(0L, idle.getEccUncorrectedVolatile());
    assertEquals(0L, idle.getEccCorrectedAggregate());
    assertEquals(0L, idle.getEccUncorrectedAggregate());
    // Hopper has row remapping, not page retirement: [N/A] is null, not 0.
    assertNull(idle.getRetiredPagesSbe());
    assertNull(idle.getRetiredPagesDbe());
    assertNull(idle.getRetiredPagesPending());
    assertEquals(0L, idle.getRemappedRowsCorrectable());
    assertEquals(0L, idle.getRemappedRowsUncorrectable());
    assertFalse(idle.getRemappedRowsPending());
    assertFalse(idle.getRemappedRowsFailure());
    assertEquals(41, idle.getTemperatureGpu());
    assertEquals(48, idle.getTemperatureMemory());
    assertEquals(NOW, idle.getTime());

    // Every column is kept as printed, under its name without the unit.
    assertEquals(212, idle.getFields().size());
    assertEquals("2026/07/14 08:12:38.696", idle.getFields().get("timestamp"));
    assertEquals("[N/A]", idle.getFields().get("ecc.errors.corrected.volatile.l1_cache"));
    assertEquals("2560", idle.getFields().get("remapped_rows.histogram.max"));
    assertTrue(idle.getFields().containsKey("memory.total"));
    assertTrue(idle.getFields().get("memory.total").endsWith(" MiB"));

    GpuEcc load = result.records().get(1);
    assertEquals(59, load.getTemperatureGpu());
    assertEquals(54, load.getTemperatureMemory());
    assertEquals("2026/07/14 08:12:53.353", load.getFields().get("timestamp"));
    assertEquals(1L, load.getSeq());
  }

  @Test
  void noHeaderNoUnitsWithNullsAndAShortRow() {
    String name = "query-gpu-noheader-nounits-synthetic.csv";
    ParseResult<GpuEcc> result =
        parser.parse(GpuQueryFields.WANTED, Samples.resource("/nvsmi/" + name), context, name);

    assertEquals(2, result.records().size());
    GpuEcc remapPending = result.records().get(0);
    assertEquals(0, remapPending.getGpu());
    assertEquals(12L, remapPending.getEccCorrectedVolatile());
    assertEquals(177L, remapPending.getEccCorrectedAggregate());
    assertNull(remapPending.getRetiredPagesSbe());
    assertEquals(1L, remapPending.getRemappedRowsCorrectable());
    assertTrue(remapPending.getRemappedRowsPending());
    assertEquals(41, remapPending.getTemperatureMemory());

    GpuEcc failed = result.records().get(1);
    assertEquals(1, failed.getGpu());
    assertEquals("00000000:2A:00.0", failed.getPciBusId());
    assertEquals(2L, failed.getEccUncorrectedVolatile());
    assertEquals(1L, failed.getRemappedRowsUncorrectable());
    assertTrue(failed.getRemappedRowsFailure());
    assertEquals(36, failed.getTemperatureGpu());
    assertNull(failed.getTemperatureMemory());
    assertEquals("[N/A]", failed.getFields().get("temperature.memory"));

    assertEquals(1, result.malformed().size());
    assertEquals(3, result.malformed().get(0).line());
  }

  @Test
  void withoutIndexTheRowPositionIsTheGpu() {
    List<String> fields = List.of("uuid", "temperature.gpu");
    ParseResult<GpuEcc> result = parser.parse(fields, "GPU-a, 30\nGPU-b, 31\n", context, "x");
    assertEquals(1, result.records().get(1).getGpu());
    assertEquals(31, result.records().get(1).getTemperatureGpu());
  }
}
