package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.streams.detect.sm.SmClusterState.PollerActivity;
import io.fabricpulse.streams.detect.sm.SmClusterState.Sweep;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Binary form of {@link SmClusterState} for its store and changelog (version byte first). */
final class SmClusterStateSerde implements Serde<SmClusterState> {

  private static final byte VERSION = 1;

  @Override
  public Serializer<SmClusterState> serializer() {
    return (topic, state) -> state == null ? null : write(state);
  }

  @Override
  public Deserializer<SmClusterState> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(SmClusterState s) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeBoolean(s.master() != null);
      if (s.master() != null) {
        writeString(out, s.master().guid());
        writeInt(out, s.master().lid());
        writeString(out, s.master().host());
      }
      out.writeLong(s.masterSeenAt());
      out.writeLong(s.firstMissAt());
      // sorted, so equal states serialize to equal bytes
      Map<String, PollerActivity> pollers = new TreeMap<>(s.pollers());
      out.writeInt(pollers.size());
      for (var e : pollers.entrySet()) {
        out.writeUTF(e.getKey());
        writeString(out, e.getValue().masterGuid());
        out.writeLong(e.getValue().activityCount());
        out.writeInt(e.getValue().stalePolls());
      }
      out.writeInt(s.sweeps().size());
      for (Sweep sweep : s.sweeps()) {
        out.writeLong(sweep.time());
        out.writeBoolean(sweep.forced());
        writeInt(out, sweep.trap());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SmClusterState read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown SM state version " + version);
      }
      SmMaster master = null;
      if (in.readBoolean()) {
        master = new SmMaster(readString(in), readInt(in), readString(in));
      }
      long seen = in.readLong();
      long miss = in.readLong();
      int pollerCount = in.readInt();
      Map<String, PollerActivity> pollers = new TreeMap<>();
      for (int i = 0; i < pollerCount; i++) {
        String node = in.readUTF();
        pollers.put(node, new PollerActivity(readString(in), in.readLong(), in.readInt()));
      }
      int sweepCount = in.readInt();
      List<Sweep> sweeps = new ArrayList<>(sweepCount);
      for (int i = 0; i < sweepCount; i++) {
        sweeps.add(new Sweep(in.readLong(), in.readBoolean(), readInt(in)));
      }
      return new SmClusterState(master, seen, miss, pollers, sweeps);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeString(DataOutputStream out, String v) throws IOException {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeUTF(v);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }

  private static void writeInt(DataOutputStream out, Integer v) throws IOException {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeInt(v);
    }
  }

  private static Integer readInt(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readInt() : null;
  }
}
