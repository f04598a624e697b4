package io.fabricpulse.collectors.agent;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.lldp.LldpSource;
import io.fabricpulse.collectors.sysfs.InMemorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * The LLDP source on a host over the real capture: gpu007's two RoCE netdevs (mlx5_8 and mlx5_9 in
 * its sysfs) cabled to leaf-r01 and leaf-r02; then leaf-r02's cable is pulled.
 */
class LldpTaskTest {
  private static final NodeIdentity GPU007 = new NodeIdentity("c1", "gpu007", "boot-1");
  private static final String HOST = "lldp/lldpd-1.0.16-host-two-tors-neighbors.txt";
  private static final Instant T0 = Instant.parse("2026-12-03T19:00:00Z");

  /** What lldpcli printed; the test swaps it between cycles. */
  private String neighbors = read(HOST);

  private final LldpSource lldp =
      new LldpSource() {
        @Override
        public String neighbors() {
          return neighbors;
        }

        @Override
        public String chassis() {
          throw new AssertionError("a host does not read its chassis");
        }
      };

  private static InMemorySysfsTree sysfs() {
    InMemorySysfsTree tree = new InMemorySysfsTree();
    String[][] ports = {
      {"mlx5_8", "ens9f0np0", "b8:3f:d2:4a:10:70"}, {"mlx5_9", "ens9f1np1", "b8:3f:d2:4a:10:71"}
    };
    for (String[] p : ports) {
      String dir = "class/infiniband/" + p[0] + "/ports/1";
      tree.put(dir + "/link_layer", "Ethernet\n")
          .put(dir + "/state", "4: ACTIVE\n")
          .put(dir + "/counters/port_rcv_data", "0\n")
          .put(dir + "/gid_attrs/ndevs/0", p[1] + "\n")
          .put("class/net/" + p[1] + "/address", p[2] + "\n");
    }
    return tree;
  }

  private LldpTask task() {
    InMemorySysfsTree tree = sysfs();
    RoceNetdevs netdevs =
        new RoceNetdevs(tree, new SysfsPortCounterReader(tree), List.of(), Duration.ofMinutes(1));
    return new LldpTask(GPU007, Duration.ofSeconds(30), lldp, LldpTask.Role.HOST, netdevs, tree);
  }

  @Test
  void theFirstCycleNamesEveryRoceCableThenAPulledOneDisappears() throws Exception {
    LldpTask task = task();

    ParseResult<SpecificRecord> first = task.collect(T0);

    assertEquals(List.of(), first.malformed());
    List<FabricLink> links = first.records().stream().map(FabricLink.class::cast).toList();
    assertEquals(2, links.size());
    assertEquals(TopologySource.LLDP, links.get(0).getSource());
    assertEquals("gpu007", links.get(0).getObservedBy());
    assertEquals("leaf-r01", links.get(0).getEndA().getNodeDescription());
    assertEquals("gpu007 mlx5_8", links.get(0).getEndB().getNodeDescription());

    neighbors =
        read(HOST)
            .lines()
            .filter(l -> !l.startsWith("lldp.ens9f1np1."))
            .reduce("", (a, l) -> a + l + "\n");
    ParseResult<SpecificRecord> second = task.collect(T0.plusSeconds(30));

    assertEquals(1, second.records().size());
    FabricLinkChange pulled = (FabricLinkChange) second.records().get(0);
    assertEquals(LinkChangeKind.DISAPPEARED, pulled.getChange());
    assertEquals("c1/0x00001c34da720c0c:swp12<->0x0000b83fd24a1071:ens9f1np1", pulled.getLinkId());
    assertEquals(2L, pulled.getSweepSeq());
  }
}
