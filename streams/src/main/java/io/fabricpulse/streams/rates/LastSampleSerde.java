package io.fabricpulse.streams.rates;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link NodeLastSamples} in the state store and its changelog. Private to the rate
 * stage, so it needs no registry; the first byte is the layout's version, and this class reads
 * every version it ever wrote.
 *
 * <ul>
 *   <li><b>Version 2</b> (written): one entry per node and source. A dictionary of the counter
 *       names and boot ids of all its ports, then per port (sorted by key, so equal state gives
 *       equal bytes): key, time, boot id index, seq, and (name index, value) pairs. Integers are
 *       unsigned LEB128 varints (the protobuf/Avro encoding), so a name costs one byte after the
 *       dictionary and a small counter one or two: an 8-port node of 45 counters is about 3.5 KB
 *       instead of the 10 KB of eight version 1 entries.
 *   <li><b>Version 1</b> (read only, fabricpulse 0.2.0 and earlier): one entry per port: time, seq,
 *       boot id and (name, value) pairs in DataOutput form. Read as a NodeLastSamples whose one
 *       port is {@link NodeLastSamples#LEGACY_PORT}.
 * </ul>
 */
public final class LastSampleSerde {

  static final byte VERSION_1 = 1;
  static final byte VERSION_2 = 2;

  private LastSampleSerde() {}

  public static Serde<NodeLastSamples> serde() {
    return Serdes.serdeFrom(serializer(), deserializer());
  }

  static Serializer<NodeLastSamples> serializer() {
    return (topic, samples) -> samples == null ? null : write(samples);
  }

  static Deserializer<NodeLastSamples> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(NodeLastSamples samples) {
    Map<String, LastSample> ports = new TreeMap<>(samples.ports());
    Map<String, Integer> names = new LinkedHashMap<>();
    Map<String, Integer> boots = new LinkedHashMap<>();
    for (LastSample sample : ports.values()) {
      boots.putIfAbsent(sample.bootId(), boots.size());
      for (int i = 0; i < sample.size(); i++) {
        names.putIfAbsent(sample.name(i), names.size());
      }
    }
    Output out = new Output(64 + 24 * names.size() + 16 * ports.size() * (names.size() + 2));
    out.writeByte(VERSION_2);
    out.writeVarLong(names.size());
    names.keySet().forEach(out::writeString);
    out.writeVarLong(boots.size());
    boots.keySet().forEach(out::writeString);
    out.writeVarLong(ports.size());
    for (Map.Entry<String, LastSample> entry : ports.entrySet()) {
      LastSample sample = entry.getValue();
      out.writeString(entry.getKey());
      out.writeVarLong(sample.timeMs());
      out.writeVarLong(boots.get(sample.bootId()));
      out.writeVarLong(sample.seq());
      out.writeVarLong(sample.size());
      for (int i = 0; i < sample.size(); i++) {
        out.writeVarLong(names.get(sample.name(i)));
        out.writeVarLong(sample.value(i));
      }
    }
    return out.toByteArray();
  }

  static NodeLastSamples read(byte[] bytes) {
    if (bytes.length == 0) {
      throw new SerializationException("rates last-sample state: empty record");
    }
    switch (bytes[0]) {
      case VERSION_2:
        return readVersion2(bytes);
      case VERSION_1:
        return new NodeLastSamples(Map.of(NodeLastSamples.LEGACY_PORT, readVersion1(bytes)));
      default:
        throw new SerializationException("rates last-sample state: unknown version " + bytes[0]);
    }
  }

  private static NodeLastSamples readVersion2(byte[] bytes) {
    Input in = new Input(bytes);
    in.pos = 1;
    String[] names = in.readStrings();
    String[] boots = in.readStrings();
    int portCount = in.readCount();
    Map<String, LastSample> ports = new HashMap<>(portCount * 2);
    for (int p = 0; p < portCount; p++) {
      String key = in.readString();
      long timeMs = in.readVarLong();
      String bootId = boots[in.readIndex(boots.length)];
      long seq = in.readVarLong();
      int count = in.readCount();
      String[] portNames = new String[count];
      long[] values = new long[count];
      for (int i = 0; i < count; i++) {
        portNames[i] = names[in.readIndex(names.length)];
        values[i] = in.readVarLong();
      }
      ports.put(key, new LastSample(timeMs, bootId, seq, portNames, values));
    }
    if (in.pos != bytes.length) {
      throw new SerializationException(
          "rates last-sample state: " + (bytes.length - in.pos) + " bytes after the last port");
    }
    return new NodeLastSamples(ports);
  }

  private static LastSample readVersion1(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      in.readByte();
      long timeMs = in.readLong();
      long seq = in.readLong();
      String bootId = in.readUTF();
      int count = in.readInt();
      List<String> names = new ArrayList<>(count);
      long[] values = new long[count];
      for (int i = 0; i < count; i++) {
        names.add(in.readUTF());
        values[i] = in.readLong();
      }
      return new LastSample(timeMs, bootId, seq, names.toArray(String[]::new), values);
    } catch (IOException e) {
      throw new SerializationException("rates last-sample state: truncated record", e);
    }
  }

  /** Writes a version 1 entry: only for tests that show old state is still read. */
  static byte[] writeVersion1(LastSample sample) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(buffer)) {
      out.writeByte(VERSION_1);
      out.writeLong(sample.timeMs());
      out.writeLong(sample.seq());
      out.writeUTF(sample.bootId());
      out.writeInt(sample.size());
      for (Map.Entry<String, Long> entry : new TreeMap<>(sample.values()).entrySet()) {
        out.writeUTF(entry.getKey());
        out.writeLong(entry.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return buffer.toByteArray();
  }

  private static final class Output {
    private byte[] bytes;
    private int size;

    Output(int capacity) {
      bytes = new byte[capacity];
    }

    void writeByte(int b) {
      if (size == bytes.length) {
        bytes = Arrays.copyOf(bytes, bytes.length * 2);
      }
      bytes[size++] = (byte) b;
    }

    /** Unsigned LEB128: seven bits a byte, low bits first, high bit set on all but the last. */
    void writeVarLong(long value) {
      while ((value & ~0x7FL) != 0) {
        writeByte((int) ((value & 0x7F) | 0x80));
        value >>>= 7;
      }
      writeByte((int) value);
    }

    void writeString(String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      writeVarLong(utf8.length);
      for (byte b : utf8) {
        writeByte(b);
      }
    }

    byte[] toByteArray() {
      return Arrays.copyOf(bytes, size);
    }
  }

  private static final class Input {
    private final byte[] bytes;
    private int pos;

    Input(byte[] bytes) {
      this.bytes = bytes;
    }

    long readVarLong() {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= bytes.length) {
          throw new SerializationException("rates last-sample state: truncated record");
        }
        byte b = bytes[pos++];
        value |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return value;
        }
      }
      throw new SerializationException("rates last-sample state: varint longer than 64 bits");
    }

    int readCount() {
      long count = readVarLong();
      if (count < 0 || count > bytes.length - pos) {
        throw new SerializationException("rates last-sample state: bad count " + count);
      }
      return (int) count;
    }

    int readIndex(int limit) {
      long index = readVarLong();
      if (index < 0 || index >= limit) {
        throw new SerializationException("rates last-sample state: bad index " + index);
      }
      return (int) index;
    }

    String readString() {
      int length = readCount();
      String s = new String(bytes, pos, length, StandardCharsets.UTF_8);
      pos += length;
      return s;
    }

    String[] readStrings() {
      String[] strings = new String[readCount()];
      for (int i = 0; i < strings.length; i++) {
        strings[i] = readString();
      }
      return strings;
    }
  }
}
