package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The RDMA port inventory of one node (store {@link NcclTransportDetector#NODE_PORTS_STORE}, key
 * cluster/node): per port its latest state and link layer, the latest non-ACTIVE state and the
 * latest link_downed increase, built from the PORT records of fabric.rates. Ports are ordered by
 * name so evidence is deterministic.
 */
final class NodePorts {

  /** PMA LinkDownedCounter: the link went down (docs/thresholds.md F1) [NVS-046]. */
  static final String LINK_DOWNED = "link_downed";

  private static final byte FORMAT = 1;

  private final Map<String, PortFact> ports;

  NodePorts() {
    this(new TreeMap<>());
  }

  private NodePorts(TreeMap<String, PortFact> ports) {
    this.ports = ports;
  }

  /** device:port (or the netdev) of a rates record. */
  static String portName(CounterRates r) {
    if (r.getDevice() != null) {
      return r.getDevice() + (r.getPort() != null ? ":" + r.getPort() : "");
    }
    return r.getNetdev() != null ? r.getNetdev() : "?";
  }

  /** The link_downed increase of a record, counted only when tagged normal or wrap; else 0. */
  static long linkDownedIncrease(CounterRates r) {
    for (CounterRate c : r.getRates()) {
      if (LINK_DOWNED.equals(c.getName())
          && (c.getTag() == RateTag.normal || c.getTag() == RateTag.wrap)
          && c.getDelta() != null
          && c.getDelta() > 0) {
        return c.getDelta();
      }
    }
    return 0;
  }

  void update(CounterRates r) {
    String name = portName(r);
    long time = r.getTime().toEpochMilli();
    PortFact before = ports.get(name);
    if (before != null && time < before.seenAt()) {
      return; // an older sample (replayed or out of order) must not roll the state back
    }
    String state = r.getState();
    String nonActiveState = before == null ? null : before.lastNonActiveState();
    long nonActiveAt = before == null ? PortFact.NEVER : before.lastNonActiveAt();
    if (state != null && !PortFact.ACTIVE.equalsIgnoreCase(state)) {
      nonActiveState = state;
      nonActiveAt = time;
    }
    long downedAt = before == null ? PortFact.NEVER : before.linkDownedAt();
    long downedDelta = before == null ? 0 : before.linkDownedDelta();
    long increase = linkDownedIncrease(r);
    if (increase > 0) {
      downedAt = time;
      downedDelta = increase;
    }
    ports.put(
        name,
        new PortFact(
            state,
            r.getPhysState(),
            r.getLinkLayer(),
            time,
            nonActiveState,
            nonActiveAt,
            downedAt,
            downedDelta));
  }

  /** Names of the ports whose latest state is ACTIVE (IB or RoCE: every PORT record is RDMA). */
  List<String> activePorts() {
    return ports.entrySet().stream()
        .filter(e -> e.getValue().active())
        .map(Map.Entry::getKey)
        .toList();
  }

  Map<String, PortFact> ports() {
    return Collections.unmodifiableMap(ports);
  }

  static Serde<NodePorts> serde() {
    return Serdes.serdeFrom(
        (topic, ports) -> ports == null ? null : ports.write(),
        (topic, bytes) -> bytes == null ? null : read(bytes));
  }

  private byte[] write() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(FORMAT);
      out.writeInt(ports.size());
      for (Map.Entry<String, PortFact> e : ports.entrySet()) {
        PortFact p = e.getValue();
        out.writeUTF(e.getKey());
        writeNullable(out, p.state());
        writeNullable(out, p.physState());
        writeNullable(out, p.linkLayer());
        out.writeLong(p.seenAt());
        writeNullable(out, p.lastNonActiveState());
        out.writeLong(p.lastNonActiveAt());
        out.writeLong(p.linkDownedAt());
        out.writeLong(p.linkDownedDelta());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static NodePorts read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte format = in.readByte();
      if (format != FORMAT) {
        throw new IllegalStateException("unknown node ports format " + format);
      }
      int size = in.readInt();
      TreeMap<String, PortFact> ports = new TreeMap<>();
      for (int i = 0; i < size; i++) {
        String name = in.readUTF();
        ports.put(
            name,
            new PortFact(
                readNullable(in),
                readNullable(in),
                readNullable(in),
                in.readLong(),
                readNullable(in),
                in.readLong(),
                in.readLong(),
                in.readLong()));
      }
      return new NodePorts(ports);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeNullable(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      out.writeUTF(s);
    }
  }

  private static String readNullable(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
