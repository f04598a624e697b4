package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class LastSampleSerdeTest {

  private final LastSample sample =
      new LastSample(
          1_737_652_060_000L,
          "3f9e2c1a-6b1d-4c55-9d0e-0a1b2c3d4e5f",
          4711,
          Map.of(
              "port_xmit_data", 85_378_896_588L,
              "symbol_error", 65_535L,
              "rx_prio3_pause", -1L)); // 2^64-1 as its two's-complement long

  @Test
  void roundTripKeepsEveryField() {
    byte[] bytes = LastSampleSerde.serde().serializer().serialize("changelog", sample);
    assertEquals(LastSampleSerde.VERSION_1, bytes[0]);
    assertEquals(sample, LastSampleSerde.serde().deserializer().deserialize("changelog", bytes));
  }

  @Test
  void nullStaysNullForTombstones() {
    assertNull(LastSampleSerde.serde().serializer().serialize("changelog", null));
    assertNull(LastSampleSerde.serde().deserializer().deserialize("changelog", null));
  }

  @Test
  void unknownVersionAndTruncatedBytesAreRefused() {
    byte[] bytes = LastSampleSerde.write(sample);
    byte[] future = bytes.clone();
    future[0] = 2;
    assertThrows(SerializationException.class, () -> LastSampleSerde.read(future));
    byte[] cut = Arrays.copyOf(bytes, bytes.length - 3);
    assertThrows(SerializationException.class, () -> LastSampleSerde.read(cut));
    assertArrayEquals(bytes, LastSampleSerde.write(LastSampleSerde.read(bytes)));
  }
}
