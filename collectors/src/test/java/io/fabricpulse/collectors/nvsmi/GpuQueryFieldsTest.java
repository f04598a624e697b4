package io.fabricpulse.collectors.nvsmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.testing.Samples;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuQueryFieldsTest {

  @Test
  void olderDriverWithoutRemappedRowsOrMemoryTemperature() {
    GpuQueryFields fields =
        GpuQueryFields.fromHelpText(Samples.resource("/nvsmi/help-query-gpu-r470-synthetic.txt"));

    assertEquals(
        List.of(
            "index",
            "uuid",
            "pci.bus_id",
            "name",
            "ecc.mode.current",
            "ecc.errors.corrected.volatile.total",
            "ecc.errors.uncorrected.volatile.total",
            "ecc.errors.corrected.aggregate.total",
            "ecc.errors.uncorrected.aggregate.total",
            "retired_pages.single_bit_ecc.count",
            "retired_pages.double_bit.count",
            "retired_pages.pending",
            "temperature.gpu"),
        fields.supported(GpuQueryFields.WANTED));
    assertTrue(fields.supports("gpu_bus_id"));
    assertTrue(fields.supports("retired_pages.sbe"));
    assertFalse(fields.supports("remapped_rows.pending"));
    // 16 canonical names plus 5 aliases; description lines that quote words are not names.
    assertEquals(21, fields.size());
    assertFalse(fields.supports("Enabled"));
  }
}
