package io.fabricpulse.streams.order;

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

/** Binary form of {@link NodeSourceClocks} for its store and changelog (version byte first). */
final class NodeSourceClocksSerde implements Serde<NodeSourceClocks> {

  private static final byte VERSION = 1;

  @Override
  public Serializer<NodeSourceClocks> serializer() {
    return (topic, clocks) -> clocks == null ? null : write(clocks);
  }

  @Override
  public Deserializer<NodeSourceClocks> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(NodeSourceClocks c) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeLong(c.releasedTo());
      Map<String, NodeSourceClocks.Source> sources = new TreeMap<>(c.sources());
      out.writeByte(sources.size());
      for (var e : sources.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeLong(e.getValue().latest());
        out.writeLong(e.getValue().intervalMs());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static NodeSourceClocks read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown node source clocks version " + version);
      }
      long releasedTo = in.readLong();
      int count = in.readUnsignedByte();
      Map<String, NodeSourceClocks.Source> sources = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        sources.put(in.readUTF(), new NodeSourceClocks.Source(in.readLong(), in.readLong()));
      }
      return new NodeSourceClocks(sources, releasedTo);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
