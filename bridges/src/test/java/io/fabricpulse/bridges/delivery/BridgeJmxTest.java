package io.fabricpulse.bridges.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.Route;
import io.fabricpulse.bridges.render.MessagePacker;
import io.fabricpulse.bridges.render.MessageRenderer;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.ManualClock;
import io.fabricpulse.bridges.testing.TestAlerts;
import io.fabricpulse.bridges.wecom.WeComRobot;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** A robot's counters as JMX shows them, read through the platform MBean server. */
class BridgeJmxTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T03:00:00Z"));

  @Test
  void aThrottledRobotShowsItsCountersAndLockoutInJmx() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      Route everything = new Route(Set.of(), Set.of(), Set.of(), List.of(), Map.of(), List.of());
      RobotConfig config =
          new RobotConfig(
              "jmx-oncall",
              RobotType.WECOM,
              server.url(),
              null,
              null,
              null,
              false,
              20,
              List.of(everything),
              null,
              "test");
      RobotDispatcher d =
          new RobotDispatcher(
              config,
              new WeComRobot("jmx-oncall", server.url(), "KEY", false, new WebhookClient()),
              new MessagePacker(new MessageRenderer(Language.EN, ZoneId.of("Asia/Shanghai"), null)),
              clock,
              Duration.ofHours(1),
              ZoneId.of("Asia/Shanghai"));
      MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = BridgeJmx.name("wecom", "jmx-oncall");
      try (BridgeJmx jmx = BridgeJmx.register("wecom", List.of(d))) {
        d.offer(new AlertChange(TestAlerts.storm("s1", "gpu001"), null, clock.instant()));
        d.offer(new AlertChange(TestAlerts.storm("s2", "gpu002"), null, clock.instant()));
        assertEquals(2L, mbeans.getAttribute(name, "Pending"));
        server.othersSent(20); // the robot's minute is used up: the first send is throttled
        d.step();
        assertEquals(1L, mbeans.getAttribute(name, "Throttled"));
        assertEquals(0L, mbeans.getAttribute(name, "MessagesSent"));
        assertEquals(
            clock.instant().plus(Duration.ofMinutes(1)).toEpochMilli(),
            mbeans.getAttribute(name, "LockedUntilEpochMs"));
        clock.advance(Duration.ofMinutes(1));
        d.step(); // the budget is loose again: each alert alone
        assertEquals(2L, mbeans.getAttribute(name, "MessagesSent"));
        assertEquals(2L, mbeans.getAttribute(name, "AlertsDelivered"));
        assertEquals(0L, mbeans.getAttribute(name, "AlertsDigested"));
        assertEquals(0L, mbeans.getAttribute(name, "Pending"));
      }
      assertFalse(mbeans.isRegistered(name));
    }
  }
}
