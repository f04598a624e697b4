package io.fabricpulse.streams.detect.ecn;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The MTU one RoCE netdev last reported, kept per cluster for the majority MTU.
 *
 * @param seenAt event time of the latest sample that reported it
 * @param device the RDMA device of the netdev, null when unknown
 */
record PortMtu(int mtu, long seenAt, String device) {

  /** Binary form for the store and its changelog. */
  static final class PortMtuSerde implements Serde<PortMtu> {
    private static final byte VERSION = 1;

    @Override
    public Serializer<PortMtu> serializer() {
      return (topic, p) -> {
        if (p == null) {
          return null;
        }
        try {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
          DataOutputStream out = new DataOutputStream(bytes);
          out.writeByte(VERSION);
          out.writeInt(p.mtu());
          out.writeLong(p.seenAt());
          out.writeBoolean(p.device() != null);
          if (p.device() != null) {
            out.writeUTF(p.device());
          }
          out.flush();
          return bytes.toByteArray();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      };
    }

    @Override
    public Deserializer<PortMtu> deserializer() {
      return (topic, data) -> {
        if (data == null) {
          return null;
        }
        try {
          DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
          byte version = in.readByte();
          if (version != VERSION) {
            throw new IllegalStateException("unknown port MTU version " + version);
          }
          int mtu = in.readInt();
          long seenAt = in.readLong();
          String device = in.readBoolean() ? in.readUTF() : null;
          return new PortMtu(mtu, seenAt, device);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      };
    }
  }
}
