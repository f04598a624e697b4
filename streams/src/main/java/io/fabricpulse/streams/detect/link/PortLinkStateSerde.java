package io.fabricpulse.streams.detect.link;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link PortLinkState} for its store and changelog, with a version byte. Version 2
 * adds each established value's highest value; a version 1 record (written before) reads as if its
 * established value were the highest.
 */
final class PortLinkStateSerde implements Serde<PortLinkState> {

  private static final byte VERSION = 2;
  private static final byte VERSION_WITHOUT_HIGHEST = 1;

  @Override
  public Serializer<PortLinkState> serializer() {
    return (topic, state) -> state == null ? null : write(state);
  }

  @Override
  public Deserializer<PortLinkState> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(PortLinkState s) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      writeString(out, s.cluster);
      writeString(out, s.node);
      writeString(out, s.device);
      out.writeInt(s.port);
      writeString(out, s.netdev);
      writeString(out, s.bootId);
      writeString(out, s.state);
      out.writeLong(s.lastSampleAt);
      out.writeLong(s.lastActiveAt);
      out.writeLong(s.downSince);
      for (List<Long> events : List.of(s.transitions, s.linkDowned, s.phyDowns)) {
        out.writeInt(events.size());
        for (long t : events) {
          out.writeLong(t);
        }
      }
      out.writeInt(s.flapCountedUntil.size());
      for (Map.Entry<String, Long> e : s.flapCountedUntil.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeLong(e.getValue());
      }
      for (EstablishedValue v : List.of(s.speed, s.lanes)) {
        out.writeDouble(v.value);
        out.writeDouble(v.candidate);
        out.writeLong(v.candidateSince);
        out.writeDouble(v.highest);
      }
      for (RollingSum sum : List.of(s.symbolErrors, s.linkErrorRecovery)) {
        out.writeInt(sum.buckets().size());
        for (long[] b : sum.buckets()) {
          out.writeLong(b[0]);
          out.writeLong(b[1]);
        }
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static PortLinkState read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION && version != VERSION_WITHOUT_HIGHEST) {
        throw new IllegalStateException("unknown port link state version " + version);
      }
      PortLinkState s = new PortLinkState();
      s.cluster = readString(in);
      s.node = readString(in);
      s.device = readString(in);
      s.port = in.readInt();
      s.netdev = readString(in);
      s.bootId = readString(in);
      s.state = readString(in);
      s.lastSampleAt = in.readLong();
      s.lastActiveAt = in.readLong();
      s.downSince = in.readLong();
      for (List<Long> events : List.of(s.transitions, s.linkDowned, s.phyDowns)) {
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          events.add(in.readLong());
        }
      }
      int rules = in.readInt();
      for (int i = 0; i < rules; i++) {
        s.flapCountedUntil.put(in.readUTF(), in.readLong());
      }
      for (EstablishedValue v : List.of(s.speed, s.lanes)) {
        v.value = in.readDouble();
        v.candidate = in.readDouble();
        v.candidateSince = in.readLong();
        v.highest = version == VERSION_WITHOUT_HIGHEST ? v.value : in.readDouble();
      }
      for (RollingSum sum : List.of(s.symbolErrors, s.linkErrorRecovery)) {
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          sum.buckets().addLast(new long[] {in.readLong(), in.readLong()});
        }
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeUTF(value);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
