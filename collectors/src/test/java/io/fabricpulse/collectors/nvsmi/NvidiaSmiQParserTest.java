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

class NvidiaSmiQParserTest {
  private final NvidiaSmiQParser parser = new NvidiaSmiQParser();
  private final SampleContext context =
      SampleContext.of(
          new NodeIdentity("c1", "h100-01", "b"), Instant.parse("2024-07-31T11:22:39Z"));

  @Test
  void eightH100sWithNewEccLayoutAllZero() {
    String name = "nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt";
    ParseResult<GpuEcc> result = parser.parse(Samples.read(name), context, name);

    assertEquals(List.of(), result.malformed());
    List<GpuEcc> gpus = result.records();
    assertEquals(8, gpus.size());
    assertEquals(
        List.of(
            "00000000:19:00.0",
            "00000000:3B:00.0",
            "00000000:4C:00.0",
            "00000000:5D:00.0",
            "00000000:9B:00.0",
            "00000000:BB:00.0",
            "00000000:CB:00.0",
            "00000000:DB:00.0"),
        gpus.stream().map(GpuEcc::getPciBusId).toList());
    assertEquals(
        List.of(29, 29, 30, 30, 31, 32, 32, 31),
        gpus.stream().map(GpuEcc::getTemperatureGpu).toList());
    assertEquals(
        List.of(39, 38, 38, 38, 38, 39, 40, 38),
        gpus.stream().map(GpuEcc::getTemperatureMemory).toList());

    GpuEcc first = gpus.get(0);
    assertEquals(0, first.getGpu());
    assertEquals(7, gpus.get(7).getGpu());
    assertEquals("NVIDIA H100 80GB HBM3", first.getName());
    assertEquals("GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa", first.getUuid());
    assertEquals("Enabled", first.getEccMode());
    for (GpuEcc gpu : gpus) {
      assertEquals(0L, gpu.getEccCorrectedVolatile());
      assertEquals(0L, gpu.getEccUncorrectedVolatile());
      assertEquals(0L, gpu.getEccCorrectedAggregate());
      assertEquals(0L, gpu.getEccUncorrectedAggregate());
      assertEquals(0L, gpu.getRemappedRowsCorrectable());
      assertEquals(0L, gpu.getRemappedRowsUncorrectable());
      assertFalse(gpu.getRemappedRowsPending());
      assertFalse(gpu.getRemappedRowsFailure());
      assertNull(gpu.getRetiredPagesSbe());
      assertNull(gpu.getRetiredPagesDbe());
      assertNull(gpu.getRetiredPagesPending());
    }
    assertEquals("0", first.getFields().get("ECC Errors/Volatile/SRAM Uncorrectable SEC-DED"));
    assertEquals(
        "2560 bank(s)",
        first.getFields().get("Remapped Rows/Bank Remap Availability Histogram/Max"));
    assertEquals("535.161.08", first.getFields().get("Driver Version"));
  }

  @Test
  void a100WithRemapPendingAndElisions() {
    String name = "nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt";
    ParseResult<GpuEcc> result = parser.parse(Samples.read(name), context, name);

    assertEquals(1, result.records().size());
    GpuEcc gpu = result.records().get(0);
    assertEquals("00000000:10:1C.0", gpu.getPciBusId());
    assertEquals("NVIDIA A100-SXM4-80GB", gpu.getName());
    assertEquals(177L, gpu.getEccCorrectedVolatile());
    assertEquals(177L, gpu.getEccCorrectedAggregate());
    assertEquals(0L, gpu.getEccUncorrectedVolatile());
    assertEquals(0L, gpu.getEccUncorrectedAggregate());
    assertNull(gpu.getRetiredPagesSbe());
    assertNull(gpu.getRetiredPagesPending());
    assertEquals(1L, gpu.getRemappedRowsCorrectable());
    assertEquals(0L, gpu.getRemappedRowsUncorrectable());
    assertTrue(gpu.getRemappedRowsPending());
    assertFalse(gpu.getRemappedRowsFailure());
    assertEquals(
        "639 bank(s)", gpu.getFields().get("Remapped Rows/Bank Remap Availability Histogram/Max"));
    assertEquals(
        "1 bank(s)", gpu.getFields().get("Remapped Rows/Bank Remap Availability Histogram/High"));
    // Elided: no ECC mode, no temperatures.
    assertNull(gpu.getEccMode());
    assertNull(gpu.getTemperatureGpu());
  }

  @Test
  void v100WithOldSingleDoubleBitLayout() {
    String name = "/nvsmi/nvidia-smi-q-v100-old-ecc-layout-synthetic.txt";
    GpuEcc gpu = parser.parse(Samples.resource(name), context, name).records().get(0);

    assertEquals("Tesla V100-SXM2-32GB", gpu.getName());
    assertEquals(5L, gpu.getEccCorrectedVolatile());
    assertEquals(1L, gpu.getEccUncorrectedVolatile());
    assertEquals(1043L, gpu.getEccCorrectedAggregate());
    assertEquals(2L, gpu.getEccUncorrectedAggregate());
    assertEquals(3L, gpu.getRetiredPagesSbe());
    assertEquals(2L, gpu.getRetiredPagesDbe());
    assertTrue(gpu.getRetiredPagesPending());
    assertNull(gpu.getRemappedRowsCorrectable());
    assertNull(gpu.getRemappedRowsPending());
    assertEquals("N/A", gpu.getFields().get("Remapped Rows"));
    assertEquals(44, gpu.getTemperatureGpu());
    assertEquals(41, gpu.getTemperatureMemory());
  }

  @Test
  void textWithoutGpuBlockIsMalformed() {
    ParseResult<GpuEcc> result = parser.parse("No devices were found\n", context, "x");
    assertEquals(0, result.records().size());
    assertEquals(1, result.malformed().size());
  }
}
