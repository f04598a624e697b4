package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class LastSampleSerdeTest {

  private static final String BOOT = "3f9e2c1a-6b1d-4c55-9d0e-0a1b2c3d4e5f";

  private final LastSample mlx50 =
      LastSample.of(
          1_737_652_060_000L,
          BOOT,
          4711,
          Map.of(
              "port_xmit_data", 85_378_896_588L,
              "symbol_error", 65_535L,
              "rx_prio3_pause", -1L)); // 2^64-1 as its two's-complement long

  private final LastSample mlx51 =
      LastSample.of(
          1_737_652_059_000L,
          "an-older-boot",
          4710,
          Map.of("port_xmit_data", 12L, "symbol_error", 0L));

  private final NodeLastSamples node =
      new NodeLastSamples(Map.of("mlx5_0/1", mlx50, "mlx5_1/1", mlx51));

  @Test
  void roundTripKeepsEveryPortAndField() {
    byte[] bytes = LastSampleSerde.serde().serializer().serialize("changelog", node);
    assertEquals(LastSampleSerde.VERSION_2, bytes[0]);
    assertEquals(node, LastSampleSerde.serde().deserializer().deserialize("changelog", bytes));
  }

  @Test
  void equalStateGivesEqualBytesWhateverTheOrderItWasBuiltIn() {
    Map<String, LastSample> reversed = new LinkedHashMap<>();
    reversed.put("mlx5_1/1", mlx51);
    reversed.put("mlx5_0/1", mlx50);
    assertArrayEquals(
        LastSampleSerde.write(node), LastSampleSerde.write(new NodeLastSamples(reversed)));
  }

  @Test
  void aNodeOfEightPortsIsFarSmallerThanEightPerPortEntries() {
    Map<String, Long> counters = new LinkedHashMap<>();
    for (int i = 0; i < 45; i++) {
      counters.put("counter_with_a_realistic_name_" + i, 1_000_000L * i);
    }
    Map<String, LastSample> ports = new LinkedHashMap<>();
    int perPort = 0;
    for (int p = 0; p < 8; p++) {
      LastSample sample = LastSample.of(1_737_652_060_000L, BOOT, 4711, counters);
      ports.put("mlx5_" + p + "/1", sample);
      perPort += LastSampleSerde.writeVersion1(sample).length;
    }
    int perNode = LastSampleSerde.write(new NodeLastSamples(ports)).length;
    assertTrue(perNode * 2 < perPort, perNode + " bytes per node vs " + perPort + " per port");
  }

  @Test
  void aPerPortEntryOfTheLastReleaseReadsAsTheLegacyPort() {
    byte[] old = LastSampleSerde.writeVersion1(mlx50);
    assertEquals(LastSampleSerde.VERSION_1, old[0]);
    NodeLastSamples read = LastSampleSerde.read(old);
    assertEquals(Map.of(NodeLastSamples.LEGACY_PORT, mlx50), read.ports());
  }

  @Test
  void nullStaysNullForTombstones() {
    assertNull(LastSampleSerde.serde().serializer().serialize("changelog", null));
    assertNull(LastSampleSerde.serde().deserializer().deserialize("changelog", null));
  }

  @Test
  void unknownVersionAndTruncatedBytesAreRefused() {
    byte[] bytes = LastSampleSerde.write(node);
    byte[] future = bytes.clone();
    future[0] = 3;
    assertThrows(SerializationException.class, () -> LastSampleSerde.read(future));
    for (int cut = 0; cut < bytes.length; cut++) {
      byte[] truncated = Arrays.copyOf(bytes, cut);
      assertThrows(SerializationException.class, () -> LastSampleSerde.read(truncated), "" + cut);
    }
    byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(SerializationException.class, () -> LastSampleSerde.read(trailing));
    byte[] oldCut = Arrays.copyOf(LastSampleSerde.writeVersion1(mlx50), 10);
    assertThrows(SerializationException.class, () -> LastSampleSerde.read(oldCut));
    assertArrayEquals(bytes, LastSampleSerde.write(LastSampleSerde.read(bytes)));
  }
}
