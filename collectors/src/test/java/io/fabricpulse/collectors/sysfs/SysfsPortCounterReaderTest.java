package io.fabricpulse.collectors.sysfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsPortCounterReaderTest {

  static final NodeIdentity NODE = new NodeIdentity("lab", "gpu001", "boot-1");
  static final Instant T = Instant.parse("2025-01-23T17:07:40.123456Z");

  @TempDir Path tmp;

  /** Unpacks a sample and returns the directory holding class/infiniband (the --sysfs-root). */
  private Path unpack(String sample) throws IOException {
    return Samples.unpackSysfs(sample, tmp);
  }

  private static ParseResult<PortCounters> read(SysfsTree tree) {
    return new SysfsPortCounterReader(tree).read(SampleContext.of(NODE, T));
  }

  static Counter counter(PortCounters record, String name) {
    return record.getCounters().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no counter " + name + " in " + record));
  }

  static long value(PortCounters record, String name) {
    return counter(record, name).getValue();
  }

  @Test
  void mlx4TwoPortQdr() throws IOException {
    ParseResult<PortCounters> result =
        read(new DirectorySysfsTree(unpack("procfs-mlx4_0-qdr-2port.ttar.txt")));

    assertEquals(2, result.records().size());
    assertTrue(result.malformed().isEmpty());
    PortCounters p1 = result.records().get(0);
    PortCounters p2 = result.records().get(1);
    assertEquals("mlx4_0", p1.getDevice());
    assertEquals(1, p1.getPort());
    assertEquals(2, p2.getPort());
    assertEquals(3599L, value(p1, "port_xmit_wait"));
    assertEquals(3846L, value(p2, "port_xmit_wait"));
    assertEquals("40 Gb/sec (4X QDR)", p1.getRate());
    assertEquals(40.0, p1.getRateGbps());
    assertEquals("4X", p1.getLinkWidth());
    assertEquals("ACTIVE", p1.getState());
    assertEquals("LinkUp", p1.getPhysState());
    assertEquals("InfiniBand", p1.getLinkLayer());
    assertEquals("InfiniBand", p2.getLinkLayer(), "port 2's link_layer has an extra blank line");
    assertNull(p1.getNetdev());

    assertEquals(26509113295L, value(p1, "port_xmit_data"));
    assertEquals(64, counter(p1, "port_xmit_data").getWidth(), "above 2^32-1 proves 64-bit");
    assertEquals(32, counter(p1, "port_xmit_packets").getWidth(), "no proof of extended width");
    assertEquals(32, counter(p1, "port_xmit_wait").getWidth());
    assertEquals(16, counter(p1, "symbol_error").getWidth());
    assertEquals(8, counter(p1, "link_downed").getWidth());
    assertEquals(4, counter(p1, "local_link_integrity_errors").getWidth());
    assertEquals(CounterGroup.COUNTERS, counter(p1, "port_xmit_wait").getGroup());

    assertEquals("lab", p1.getCluster());
    assertEquals("gpu001", p1.getNode());
    assertEquals("boot-1", p1.getBootId());
    assertEquals(Instant.parse("2025-01-23T17:07:40.123Z"), p1.getTime());
    assertEquals(0L, p1.getSeq());
    assertEquals(1L, p2.getSeq());
    assertTrue(p1.getReadErrors().isEmpty());
  }

  @Test
  void mlx5HwCounters() throws IOException {
    ParseResult<PortCounters> result =
        read(new DirectorySysfsTree(unpack("procfs-mlx5_0-hw_counters.ttar.txt")));

    assertEquals(1, result.records().size());
    PortCounters p = result.records().get(0);
    assertEquals("mlx5_0", p.getDevice());
    assertEquals(41L, value(p, "duplicate_request"));
    assertEquals(131L, value(p, "local_ack_timeout_err"));
    assertEquals(3481L, value(p, "req_cqe_error"));
    assertEquals(8109L, value(p, "resp_cqe_error"));
    assertEquals(99L, value(p, "roce_adp_retrans"));
    assertEquals(131L, value(p, "roce_slow_restart_cnps"));
    assertEquals(CounterGroup.HW_COUNTERS, counter(p, "req_cqe_error").getGroup());
    assertEquals(32, counter(p, "req_cqe_error").getWidth());
    assertTrue(
        p.getCounters().stream().noneMatch(c -> c.getName().equals("lifespan")),
        "lifespan is a setting, not a counter");
    assertEquals(25.0, p.getRateGbps());
    assertEquals("1X", p.getLinkWidth());
    assertEquals("ACTIVE", p.getState());
    assertEquals("ACTIVE", p.getPhysState(), "fixture quirk: phys_state reads 4: ACTIVE");

    // unicast_* present: the extended PMA set, so packets are 64-bit even below 2^32.
    assertEquals(541889824L, value(p, "port_rcv_packets"));
    assertEquals(64, counter(p, "port_rcv_packets").getWidth());
    assertEquals(2880761508848L, value(p, "port_xmit_data"));
    assertEquals(
        21 + 24,
        p.getCounters().size(),
        "21 counters/ files + 25 hw_counters/ files less lifespan");
  }

  @Test
  void iwarpWithoutPma() throws IOException {
    ParseResult<PortCounters> result =
        read(new DirectorySysfsTree(unpack("node_exporter-i40iw0-iwarp.ttar.txt")));

    assertEquals(1, result.records().size());
    assertTrue(result.malformed().isEmpty(), "N/A (no PMA) is expected text, not malformed");
    PortCounters p = result.records().get(0);
    assertEquals("i40iw0", p.getDevice());
    assertEquals(17, p.getCounters().size());
    for (Counter c : p.getCounters()) {
      assertNull(c.getValue(), c.getName());
      assertEquals("N/A (no PMA)", c.getUnavailable(), c.getName());
    }
    assertEquals(10.0, p.getRateGbps());
    assertEquals("4X", p.getLinkWidth());
    assertEquals("10 Gb/sec (4X)", p.getRate());
  }

  @Test
  void readErrorOnOneFileKeepsTheRest() {
    String port = "class/infiniband/mlx5_3/ports/1/";
    InMemorySysfsTree tree =
        new InMemorySysfsTree()
            .put(port + "counters/port_xmit_wait", "17\n")
            .fail(port + "counters/symbol_error", "Input/output error")
            .put(port + "counters/link_downed", "garbage\n")
            .fail(port + "rate", "Invalid argument")
            .put(port + "state", "1: DOWN\n")
            .put(port + "phys_state", "3: Disabled\n");

    ParseResult<PortCounters> result = read(tree);

    PortCounters p = result.records().get(0);
    assertEquals(17L, value(p, "port_xmit_wait"));
    assertNull(counter(p, "symbol_error").getValue());
    assertEquals("Input/output error", counter(p, "symbol_error").getUnavailable());
    assertEquals(
        List.of(
            "class/infiniband/mlx5_3/ports/1/counters/symbol_error: Input/output error",
            "class/infiniband/mlx5_3/ports/1/rate: Invalid argument"),
        p.getReadErrors());
    assertNull(p.getRate());
    assertNull(p.getRateGbps());
    assertEquals("DOWN", p.getState());
    assertEquals("Disabled", p.getPhysState());
    assertNull(counter(p, "link_downed").getValue());
    assertEquals("garbage", counter(p, "link_downed").getUnavailable());
    assertEquals(1, result.malformed().size());
    assertEquals(
        "class/infiniband/mlx5_3/ports/1/counters/link_downed", result.malformed().get(0).source());
  }

  @Test
  void includeAndExcludePatterns() {
    InMemorySysfsTree tree = new InMemorySysfsTree();
    for (String dev : List.of("mlx5_0", "mlx5_1", "mlx5_bond_0", "i40iw0")) {
      tree.put("class/infiniband/" + dev + "/ports/1/counters/port_xmit_wait", "5\n");
    }
    SysfsPortCounterReader reader =
        new SysfsPortCounterReader(
            tree,
            java.util.regex.Pattern.compile("mlx5_.*"),
            java.util.regex.Pattern.compile("mlx5_bond_.*|mlx5_1"));

    assertEquals(List.of("mlx5_0"), reader.devices());
    List<PortCounters> records = reader.read(SampleContext.of(NODE, T)).records();
    assertEquals(1, records.size());
    assertEquals("mlx5_0", records.get(0).getDevice());
  }

  @Test
  void missingDirectoriesGiveEmptyOrPartialSamples() {
    assertTrue(read(new InMemorySysfsTree()).records().isEmpty(), "no class/infiniband at all");
    InMemorySysfsTree tree =
        new InMemorySysfsTree().put("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    PortCounters p = read(tree).records().get(0);
    assertTrue(p.getCounters().isEmpty());
    assertEquals("ACTIVE", p.getState());
    assertTrue(p.getReadErrors().isEmpty());
  }

  @Test
  void legacyCountersExtAre64Bit() {
    String port = "class/infiniband/mlx4_1/ports/1/";
    InMemorySysfsTree tree =
        new InMemorySysfsTree()
            .put(port + "counters/port_xmit_data", "4294967295\n")
            .put(port + "counters_ext/port_xmit_data_64", "18446744073709551615\n")
            .put(port + "counters_ext/port_unicast_xmit_packets", "123456789\n");

    PortCounters p = read(tree).records().get(0);

    assertEquals(32, counter(p, "port_xmit_data").getWidth(), "legacy kernel: 32-bit, saturated");
    Counter data64 = counter(p, "port_xmit_data_64");
    assertEquals(CounterGroup.COUNTERS_EXT, data64.getGroup());
    assertEquals(64, data64.getWidth());
    assertEquals(-1L, data64.getValue(), "2^64-1 kept as its two's-complement long");
    assertEquals("18446744073709551615", Long.toUnsignedString(data64.getValue()));
    assertEquals(123456789L, value(p, "port_unicast_xmit_packets"));
  }

  @Test
  void roceNetdevFromGidAttrsOrDeviceNet() {
    InMemorySysfsTree tree =
        new InMemorySysfsTree()
            .put("class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n")
            .put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "ens1np0\n")
            .put("class/net/ens1np0/mtu", "9000\n")
            .put("class/net/ens1np0/speed", "400000\n")
            .put("class/infiniband/mlx4_0/ports/2/link_layer", "Ethernet\n")
            .fail("class/infiniband/mlx4_0/ports/2/gid_attrs/ndevs/0", "Invalid argument")
            .put("class/infiniband/mlx4_0/device/net/enp3s0/dev_port", "0\n")
            .put("class/infiniband/mlx4_0/device/net/enp3s0d1/dev_port", "1\n")
            .put("class/net/enp3s0d1/mtu", "1500\n")
            .put("class/net/enp3s0d1/speed", "-1\n");

    List<PortCounters> records = read(tree).records();

    PortCounters mlx4 = records.get(0);
    assertEquals("enp3s0d1", mlx4.getNetdev(), "dev_port 1 is port 2");
    assertEquals(1500, mlx4.getNetdevMtu());
    assertNull(mlx4.getNetdevSpeedMbps(), "-1 means unknown");
    assertTrue(mlx4.getReadErrors().isEmpty(), "unset GID 0 is not an error");
    PortCounters mlx5 = records.get(1);
    assertEquals("ens1np0", mlx5.getNetdev());
    assertEquals(9000, mlx5.getNetdevMtu());
    assertEquals(400000, mlx5.getNetdevSpeedMbps());
    assertEquals("Ethernet", mlx5.getLinkLayer());
  }

  @Test
  void rateAndStateText() {
    assertEquals(
        new SysfsValues.LinkRate(400.0, "4X"), SysfsValues.parseRate("400 Gb/sec (4X NDR)\n"));
    assertEquals(new SysfsValues.LinkRate(2.5, "1X"), SysfsValues.parseRate("2.5 Gb/sec (1X SDR)"));
    assertEquals(new SysfsValues.LinkRate(null, null), SysfsValues.parseRate("unknown"));
    assertEquals("ACTIVE", SysfsValues.stateName("4: ACTIVE\n"));
    assertEquals("LinkUp", SysfsValues.stateName("5: LinkUp\n"));
    assertEquals("DOWN", SysfsValues.stateName("DOWN"));
    assertNull(SysfsValues.parseUnsigned("18446744073709551616"), "more than 64 bits");
    assertFalse(SysfsValues.parseUnsigned("-1") != null, "signed text is not a counter");
  }
}
