package io.fabricpulse.streams.detect.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The port state in its store and changelog: today's version, and the one written before it. */
class PortLinkStateSerdeTest {

  @Test
  void aPortThatRunsAt200AfterAnEstablished400KeepsBothValuesThroughItsChangelog() {
    PortLinkState st = new PortLinkState();
    st.cluster = "c1";
    st.node = "gpu030";
    st.device = "mlx5_0";
    st.port = 1;
    st.state = LinkSample.ACTIVE;
    st.speed.observe(400, 0, 60_000, 86_400_000);
    st.speed.observe(200, 60_000, 60_000, 60_000);
    st.speed.observe(200, 120_000, 60_000, 60_000); // re-established at 200
    st.speed.observe(100, 180_000, 60_000, 60_000); // a candidate below it

    PortLinkState read = PortLinkStateSerde.read(PortLinkStateSerde.write(st));
    assertEquals(200.0, read.speed.value);
    assertEquals(400.0, read.speed.highest);
    assertEquals(100.0, read.speed.candidate);
    assertEquals(180_000L, read.speed.candidateSince);
    assertEquals("gpu030", read.node);
  }

  /** Version 1 had no highest value: the established value is the highest the port has proven. */
  @Test
  void aVersion1RecordReadsWithItsEstablishedValueAsTheHighest() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    for (String s : new String[] {"c1", "gpu030", "mlx5_0"}) {
      out.writeBoolean(true);
      out.writeUTF(s);
    }
    out.writeInt(1); // port
    out.writeBoolean(false); // netdev
    out.writeBoolean(true);
    out.writeUTF("boot-1");
    out.writeBoolean(true);
    out.writeUTF(LinkSample.ACTIVE);
    out.writeLong(5_000); // lastSampleAt
    out.writeLong(5_000); // lastActiveAt
    out.writeLong(PortLinkState.NEVER); // downSince
    for (int events = 0; events < 3; events++) {
      out.writeInt(0);
    }
    out.writeInt(0); // flapCountedUntil
    out.writeDouble(400); // speed: value, candidate, since
    out.writeDouble(0);
    out.writeLong(0);
    out.writeDouble(4); // lanes
    out.writeDouble(0);
    out.writeLong(0);
    out.writeInt(0); // symbol_error buckets
    out.writeInt(0); // link_error_recovery buckets
    out.flush();

    PortLinkState read = PortLinkStateSerde.read(bytes.toByteArray());
    assertEquals(400.0, read.speed.value);
    assertEquals(400.0, read.speed.highest);
    assertEquals(4.0, read.lanes.highest);
    assertEquals(5_000L, read.lastSampleAt);
  }

  @Test
  void anUnknownVersionIsRefused() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> PortLinkStateSerde.read(new byte[] {9}));
    assertEquals("unknown port link state version 9", e.getMessage());
  }
}
