package io.fabricpulse.streams.rates;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link LastSample} in the state store and its changelog: a format version byte,
 * then time, seq, boot id and (name, value) pairs. Private to the rate stage, so it needs no
 * registry; a new layout gets a new version byte and this class keeps reading the old one.
 */
public final class LastSampleSerde {

  static final byte VERSION_1 = 1;

  private LastSampleSerde() {}

  public static Serde<LastSample> serde() {
    return Serdes.serdeFrom(serializer(), deserializer());
  }

  static Serializer<LastSample> serializer() {
    return (topic, sample) -> sample == null ? null : write(sample);
  }

  static Deserializer<LastSample> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(LastSample sample) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 + 32 * sample.values().size());
    try (DataOutputStream out = new DataOutputStream(buffer)) {
      out.writeByte(VERSION_1);
      out.writeLong(sample.timeMs());
      out.writeLong(sample.seq());
      out.writeUTF(sample.bootId());
      out.writeInt(sample.values().size());
      // sorted, so equal samples always give equal bytes
      for (Map.Entry<String, Long> entry : new TreeMap<>(sample.values()).entrySet()) {
        out.writeUTF(entry.getKey());
        out.writeLong(entry.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return buffer.toByteArray();
  }

  static LastSample read(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte version = in.readByte();
      if (version != VERSION_1) {
        throw new SerializationException("rates last-sample state: unknown version " + version);
      }
      long timeMs = in.readLong();
      long seq = in.readLong();
      String bootId = in.readUTF();
      int count = in.readInt();
      Map<String, Long> values = new LinkedHashMap<>(count * 2);
      for (int i = 0; i < count; i++) {
        values.put(in.readUTF(), in.readLong());
      }
      return new LastSample(timeMs, bootId, seq, values);
    } catch (IOException e) {
      throw new SerializationException("rates last-sample state: truncated record", e);
    }
  }
}
