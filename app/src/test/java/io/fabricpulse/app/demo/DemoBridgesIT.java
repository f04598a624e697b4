package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.bridges.testing.FakeDingTalkServer;
import io.fabricpulse.bridges.testing.FakeRobotServer;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo --duration 60s --wecom-webhook ... --dingtalk-webhook ...} against local robots that
 * enforce the documented limits (the DingTalk one with the signature and keyword settings): every
 * alert the demo raised reaches both robots, no request is refused, and the demo exits 0. The
 * robots run on the wall clock here because the demo's bridges do.
 */
class DemoBridgesIT {
  private static final String SECRET = "SECdemo-bridges-it";

  @Test
  void theDemoDeliversEveryAlertToBothRobotsWithinTheirLimits(@TempDir Path dir) throws Exception {
    Clock clock = Clock.systemUTC();
    try (FakeWeComServer wecom = new FakeWeComServer(clock, "demo-key");
        FakeDingTalkServer dingtalk =
            new FakeDingTalkServer(clock, "demo-token", SECRET, "fabricpulse")) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      Demo.Settings settings =
          new Demo.Settings(
              "demo",
              16,
              42,
              20,
              Duration.ofSeconds(60),
              dir,
              null,
              "fabricpulse",
              "fabricpulse",
              null,
              new DemoBridges.Targets(
                  wecom.url(), "demo-key", dingtalk.url(), "demo-token", SECRET, "fabricpulse"),
              0); // no status page
      int exit = new Demo(settings, out).run();
      String output = verdictFirst(bytes.toString(StandardCharsets.UTF_8));
      assertEquals(0, exit, output);
      assertTrue(output.contains("OK: every alert reached the robots"), output);
      assertFalse(
          output.contains("demo-key") || output.contains("demo-token") || output.contains(SECRET),
          "a secret in the output");
      for (FakeRobotServer server : List.of(wecom, dingtalk)) {
        assertFalse(server.accepted().isEmpty());
        assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count(), output);
        for (FakeRobotServer.Request first : server.requests()) {
          Instant from = first.at();
          long inMinute =
              server.requests().stream()
                  .filter(r -> !r.at().isBefore(from) && r.at().isBefore(from.plusSeconds(60)))
                  .count();
          assertTrue(inMinute <= 20, inMinute + " requests in a minute");
        }
      }
    }
  }

  /**
   * The demo's output with its verdict (from "stopping after" on) first: a failure message is cut
   * to its head and tail in CI logs, and the progress lines in between say little.
   */
  private static String verdictFirst(String output) {
    int verdict = output.lastIndexOf("stopping after");
    return verdict < 0
        ? output
        : output.substring(verdict)
            + "\n--- the run from its start ---\n"
            + output.substring(0, verdict);
  }
}
