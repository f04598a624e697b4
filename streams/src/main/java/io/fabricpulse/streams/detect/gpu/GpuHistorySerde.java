package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.streams.detect.gpu.GpuHistory.Point;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Binary form of {@link GpuHistory} for its store and changelog (version byte first). */
final class GpuHistorySerde implements Serde<GpuHistory> {

  private static final byte VERSION = 1;

  @Override
  public Serializer<GpuHistory> serializer() {
    return (topic, h) -> h == null ? null : write(h);
  }

  @Override
  public Deserializer<GpuHistory> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(GpuHistory h) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeUTF(h.bootId());
      out.writeLong(h.time());
      writeLong(out, h.uncorrectedVolatile());
      writeLong(out, h.uncorrectedAggregate());
      out.writeBoolean(h.correctedAggregate());
      out.writeInt(h.corrected().size());
      for (Point p : h.corrected()) {
        out.writeLong(p.time());
        out.writeLong(p.value());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static GpuHistory read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown GPU history version " + version);
      }
      String boot = in.readUTF();
      long time = in.readLong();
      Long vol = readLong(in);
      Long agg = readLong(in);
      boolean aggregate = in.readBoolean();
      int n = in.readInt();
      List<Point> points = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        points.add(new Point(in.readLong(), in.readLong()));
      }
      return new GpuHistory(boot, time, vol, agg, aggregate, points);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeLong(DataOutputStream out, Long v) throws IOException {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v);
    }
  }

  private static Long readLong(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }
}
