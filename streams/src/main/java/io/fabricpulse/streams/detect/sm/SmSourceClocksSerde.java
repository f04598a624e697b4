package io.fabricpulse.streams.detect.sm;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Binary form of {@link SmSourceClocks} for its store and changelog (version byte first). */
final class SmSourceClocksSerde implements Serde<SmSourceClocks> {

  private static final byte VERSION = 1;

  @Override
  public Serializer<SmSourceClocks> serializer() {
    return (topic, clocks) -> clocks == null ? null : write(clocks);
  }

  @Override
  public Deserializer<SmSourceClocks> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(SmSourceClocks c) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeLong(c.releasedTo());
      // sorted, so equal clocks serialize to equal bytes
      Map<String, Long> latest = new TreeMap<>(c.latest());
      out.writeInt(latest.size());
      for (var e : latest.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeLong(e.getValue());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SmSourceClocks read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown SM source clocks version " + version);
      }
      long releasedTo = in.readLong();
      int count = in.readInt();
      Map<String, Long> latest = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        latest.put(in.readUTF(), in.readLong());
      }
      return new SmSourceClocks(latest, releasedTo);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
