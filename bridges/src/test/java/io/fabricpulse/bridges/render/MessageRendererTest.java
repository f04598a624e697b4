package io.fabricpulse.bridges.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.testing.TestAlerts;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The templates as an operator reads them on a phone. */
class MessageRendererTest {
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private final Alert storm = TestAlerts.storm("s7", "gpu007");

  @Test
  void aFiringPageInEnglish() {
    MessageRenderer r =
        new MessageRenderer(Language.EN, SHANGHAI, "https://grafana.example/d/fabric");
    Message m = r.single(storm, Set.of());
    assertEquals("[CRITICAL] PAUSE_STORM firing", m.title());
    assertEquals(
        List.of(
            "### [CRITICAL] PAUSE_STORM firing",
            "**Subject**: gpu007 ens9f0np0 prio 3 (cluster demo)",
            "**Summary**: gpu007 ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1 for 30s",
            "**Value**: 0.42 ratio (threshold 0.1 ratio)",
            "**Started**: 2026-12-01 19:30:00 (Asia/Shanghai)",
            "[Grafana](https://grafana.example/d/fabric?var-cluster=demo&var-node=gpu007)"),
        m.lines());
  }

  @Test
  void aFiringPageInChinese() {
    MessageRenderer r = new MessageRenderer(Language.ZH, SHANGHAI, null);
    Alert withRunbook =
        Alert.newBuilder(storm).setLabels(Map.of("runbook", "https://wiki.example/pfc")).build();
    assertEquals(
        List.of(
            "### 【严重】PAUSE_STORM 告警",
            "**对象**：gpu007 ens9f0np0 优先级 3（集群 demo）",
            "**摘要**：gpu007 ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1 for 30s",
            "**数值**：0.42 ratio（阈值 0.1 ratio）",
            "**开始**：2026-12-01 19:30:00 (Asia/Shanghai)",
            "[处置手册](https://wiki.example/pfc)"),
        r.single(withRunbook, Set.of()).lines());
  }

  @Test
  void theSwitchPortAtTheOtherEndIsNamedWhenTheTopologyIsKnown() {
    Alert flap =
        TestAlerts.firing("f1", AlertKind.LINK_FLAP, Severity.WARNING, "gpu011")
            .setDevice("mlx5_0")
            .setPort(1)
            .setSummary("gpu011 mlx5_0/1: 3 link downs in 10 min")
            .setLabels(Map.of("peer", "leaf-07 port 12", "peer_guid", "0x248a070300b2c3d4"))
            .build();
    MessageRenderer en = new MessageRenderer(Language.EN, SHANGHAI, null);
    assertEquals("**Peer**: leaf-07 port 12", en.single(flap, Set.of()).lines().get(2));
    assertEquals(
        "- [WARNING] LINK_FLAP **gpu011 mlx5_0/1** (peer leaf-07 port 12), since 19:30:00",
        en.digestLine(flap));
    MessageRenderer zh = new MessageRenderer(Language.ZH, SHANGHAI, null);
    assertEquals("**对端**：leaf-07 port 12", zh.single(flap, Set.of()).lines().get(2));
    assertEquals(
        "- 【警告】LINK_FLAP **gpu011 mlx5_0/1**（对端 leaf-07 port 12），开始 19:30:00", zh.digestLine(flap));
    // without the topology: no peer line
    Alert unknown = Alert.newBuilder(flap).setLabels(Map.of()).build();
    assertEquals(
        "**Summary**: gpu011 mlx5_0/1: 3 link downs in 10 min",
        en.single(unknown, Set.of()).lines().get(2));
  }

  @Test
  void aResolvedNoticeNamesThePageAndHowLongItLasted() {
    MessageRenderer r = new MessageRenderer(Language.EN, SHANGHAI, null);
    Alert resolved = TestAlerts.resolved(storm, Instant.parse("2026-12-01T11:42:30Z"));
    assertEquals(
        List.of(
            "### [RESOLVED] PAUSE_STORM resolved",
            "**Subject**: gpu007 ens9f0np0 prio 3 (cluster demo)",
            "**Page**: gpu007 ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1 for 30s",
            "**Lasted**: 12m30s (started 2026-12-01 19:30:00, resolved 2026-12-01 19:42:30)"),
        r.single(resolved, Set.of()).lines());
    MessageRenderer zh = new MessageRenderer(Language.ZH, SHANGHAI, null);
    assertEquals(
        "**持续**：12m30s（开始 2026-12-01 19:30:00，恢复 2026-12-01 19:42:30）",
        zh.single(resolved, Set.of()).lines().get(3));
  }

  @Test
  void aDigestSaysWhatItHoldsAndWhoTheStormsAreVictimsOf() {
    MessageRenderer r = new MessageRenderer(Language.EN, SHANGHAI, null);
    Alert s1 = TestAlerts.storm("s1", "gpu001");
    Alert s2 = TestAlerts.storm("s2", "gpu002");
    Alert s3 = TestAlerts.storm("s3", "gpu003");
    Alert propagation =
        TestAlerts.firing("p1", AlertKind.PAUSE_PROPAGATION, Severity.CRITICAL, null)
            .setEvidence(Map.of("origins", "gpu007/ens9f0np0 prio 3", "storm_alert_ids", "s1, s2"))
            .build();
    Alert flap =
        TestAlerts.firing("f1", AlertKind.LINK_FLAP, Severity.WARNING, "gpu011")
            .setDevice("mlx5_0")
            .setPort(1)
            .build();
    List<Alert> all =
        List.of(
            s1,
            s2,
            s3,
            propagation,
            flap,
            TestAlerts.resolved(
                TestAlerts.storm("s9", "gpu009"), Instant.parse("2026-12-01T11:31:00Z")));
    assertEquals("6 alerts (5 firing, 1 resolved)", r.digestTitle(all));
    assertEquals(
        "4 PAUSE_STORM on gpu001-gpu003, gpu009 (victims of gpu007/ens9f0np0 prio 3), 1 PAUSE_PROPAGATION, 1 LINK_FLAP on gpu011",
        r.digestSummary(all));
    assertEquals("- [WARNING] LINK_FLAP **gpu011 mlx5_0/1**, since 19:30:00", r.digestLine(flap));
    assertEquals(
        "- [RESOLVED] PAUSE_STORM **gpu009 ens9f0np0 prio 3** resolved after 1m0s",
        r.digestLine(all.get(5)));
    MessageRenderer zh = new MessageRenderer(Language.ZH, SHANGHAI, null);
    assertEquals("6 条告警（5 条触发，1 条恢复）", zh.digestTitle(all));
    assertEquals(
        "- 【严重】PAUSE_STORM **gpu001 ens9f0np0 优先级 3** 0.42 ratio（阈值 0.1 ratio），开始 19:30:00",
        zh.digestLine(s1));
  }

  @Test
  void aDigestGivesOneLinePerIncidentAndGroupsTheSwitchesPorts() {
    MessageRenderer r = new MessageRenderer(Language.EN, SHANGHAI, null);
    // a flap seen from gpu007's sysfs and from leaf-07's perfquery sweep: one incident
    Alert hostFlap =
        TestAlerts.hostEnd("h1", AlertKind.LINK_FLAP, "gpu007", 3, "leaf-07", 12, "inc-flap");
    Alert switchFlap =
        TestAlerts.switchEnd(
            "w1", AlertKind.LINK_FLAP, "leaf-07", 12, "gpu007 mlx5_3 port 1", "inc-flap");
    // a dirty ISL: leaf-07 port 33 <-> spine-02 port 5, both ends count symbol errors
    Alert islLeaf =
        Alert.newBuilder(
                TestAlerts.switchEnd(
                    "w2", AlertKind.PHY_ERRORS, "leaf-07", 33, "spine-02 port 5", "inc-isl"))
            .setValue(120.0)
            .setUnit("errors/10min")
            .build();
    Alert islSpine =
        Alert.newBuilder(
                TestAlerts.switchEnd(
                    "w3", AlertKind.PHY_ERRORS, "spine-02", 5, "leaf-07 port 33", "inc-isl"))
            .setValue(4.0)
            .setUnit("errors/10min")
            .build();
    Alert congestion =
        TestAlerts.switchEnd("w4", AlertKind.XMIT_WAIT, "spine-02", 9, "leaf-03 port 40", "inc-x");
    Alert storm = TestAlerts.storm("s1", "gpu001");
    List<Alert> all = List.of(hostFlap, storm, islLeaf, congestion, switchFlap, islSpine);
    assertEquals(
        List.of(
            "- [CRITICAL] PAUSE_STORM **gpu001 ens9f0np0 prio 3** 0.42 ratio (threshold 0.1 ratio), since 19:30:00",
            "**leaf-07** (switch, 4 alerts)",
            "- [WARNING] LINK_FLAP **gpu007 mlx5_3/1 <-> leaf-07 port 12** on both ends (2 alerts), since 19:30:00",
            "- [WARNING] PHY_ERRORS **leaf-07 port 33 <-> spine-02 port 5** on both ends (2 alerts) 120 errors/10min; 4 errors/10min, since 19:30:00",
            "**spine-02** (switch, 1 alert)",
            "- [WARNING] XMIT_WAIT **spine-02 port 9** (peer leaf-03 port 40), since 19:30:00"),
        r.digestLines(all));
    MessageRenderer zh = new MessageRenderer(Language.ZH, SHANGHAI, null);
    assertEquals(
        "- 【警告】LINK_FLAP **gpu007 mlx5_3/1 <-> leaf-07 port 12**（两端，2 条），开始 19:30:00",
        zh.digestLines(List.of(switchFlap, hostFlap)).get(1));
    assertEquals("**leaf-07**（交换机，2 条告警）", zh.digestLines(List.of(switchFlap, hostFlap)).get(0));
    // one end firing, the other already resolved: two lines, the incident is not merged across
    // states; both under the leaf, where the host's cable ends
    Alert hostResolved = TestAlerts.resolved(hostFlap, Instant.parse("2026-12-01T11:31:00Z"));
    assertEquals(
        List.of(
            "**leaf-07** (switch, 2 alerts)",
            "- [WARNING] LINK_FLAP **leaf-07 port 12** (peer gpu007 mlx5_3 port 1), since 19:30:00",
            "- [RESOLVED] LINK_FLAP **gpu007 mlx5_3/1** (peer leaf-07 port 12) resolved after 1m0s"),
        r.digestLines(List.of(switchFlap, hostResolved)));
  }

  @Test
  void aHostPortAlertGoesUnderTheLeafItsCableEndsOn() {
    MessageRenderer r = new MessageRenderer(Language.EN, SHANGHAI, null);
    // symbol errors counted by gpu003's HCA only, and a drop seen from both ends of gpu009's cable
    Alert dirty =
        TestAlerts.hostEnd("h1", AlertKind.PHY_ERRORS, "gpu003", 2, "leaf-03", 3, "inc-dirty");
    Alert down =
        TestAlerts.hostEnd("h2", AlertKind.LINK_DOWN, "gpu009", 2, "leaf-03", 9, "inc-down");
    Alert leafDown =
        TestAlerts.switchEnd(
            "w1", AlertKind.LINK_DOWN, "leaf-03", 9, "gpu009 mlx5_2 port 1", "inc-down");
    Alert storm = TestAlerts.storm("s1", "gpu001"); // a RoCE netdev: no cable on the topology
    assertEquals(
        List.of(
            "- [CRITICAL] PAUSE_STORM **gpu001 ens9f0np0 prio 3** 0.42 ratio (threshold 0.1 ratio), since 19:30:00",
            "**leaf-03** (switch, 3 alerts)",
            "- [WARNING] PHY_ERRORS **gpu003 mlx5_2/1** (peer leaf-03 port 3), since 19:30:00",
            "- [WARNING] LINK_DOWN **gpu009 mlx5_2/1 <-> leaf-03 port 9** on both ends (2 alerts), since 19:30:00"),
        r.digestLines(List.of(dirty, storm, down, leafDown)));
  }

  @Test
  void manyKindsEndInPlusNMore() {
    MessageRenderer r = new MessageRenderer(Language.EN, SHANGHAI, null);
    List<Alert> all =
        List.of(
            TestAlerts.firing("a", AlertKind.GPU_XID, Severity.WARNING, "gpu001").build(),
            TestAlerts.firing("b", AlertKind.GPU_HOT, Severity.WARNING, "gpu001").build(),
            TestAlerts.firing("c", AlertKind.LINK_DOWN, Severity.WARNING, "gpu001").build(),
            TestAlerts.firing("d", AlertKind.MTU_MISMATCH, Severity.WARNING, "gpu001").build(),
            TestAlerts.firing("e", AlertKind.SM_HUNG, Severity.WARNING, "sm01").build(),
            TestAlerts.firing("f", AlertKind.SM_ABSENT, Severity.WARNING, "sm02").build());
    assertEquals(
        "1 GPU_XID on gpu001, 1 GPU_HOT on gpu001, 1 LINK_DOWN on gpu001, 1 MTU_MISMATCH on gpu001, +2 more",
        r.digestSummary(all));
  }
}
