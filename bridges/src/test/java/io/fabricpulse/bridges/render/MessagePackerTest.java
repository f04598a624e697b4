package io.fabricpulse.bridges.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.render.MessagePacker.Packed;
import io.fabricpulse.bridges.testing.TestAlerts;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Digests split between alert lines under a byte limit, Chinese text included. */
class MessagePackerTest {
  private final MessageRenderer renderer =
      new MessageRenderer(Language.ZH, ZoneId.of("Asia/Shanghai"), null);
  private final MessagePacker packer = new MessagePacker(renderer);

  private static int bytes(Message m) {
    return String.join("\n", m.lines()).getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void splitsBetweenAlertLinesAndKeepsEveryAlertOnce() {
    List<Alert> alerts = new ArrayList<>();
    for (int i = 1; i <= 50; i++) {
      alerts.add(TestAlerts.storm("s" + i, String.format("gpu%03d", i)));
    }
    int limit = 1024;
    Predicate<Message> fits = m -> bytes(m) <= limit;
    List<Packed> parts = packer.digest(alerts, a -> Set.of(), fits);
    assertTrue(parts.size() > 1);
    List<Alert> carried = new ArrayList<>();
    for (Packed p : parts) {
      assertTrue(bytes(p.message()) <= limit, bytes(p.message()) + " bytes");
      // a header, the summary, then exactly one whole line per alert it carries
      List<String> lines = p.message().lines();
      assertEquals(2 + p.alerts().size(), lines.size());
      for (int i = 0; i < p.alerts().size(); i++) {
        assertEquals(renderer.digestLine(p.alerts().get(i)), lines.get(2 + i));
      }
      carried.addAll(p.alerts());
    }
    assertEquals(alerts, carried);
  }

  @Test
  void aLineTooLongAloneIsCutAtACharacterBoundary() {
    Alert huge =
        Alert.newBuilder(TestAlerts.storm("h", "gpu001")).setSummary("暂停帧风暴".repeat(500)).build();
    Message m = packer.single(huge, Set.of(), x -> bytes(x) <= 1000);
    assertTrue(bytes(m) <= 1000, bytes(m) + " bytes");
    String summary = m.lines().get(2);
    assertTrue(summary.endsWith(Utf8.ELLIPSIS), summary);
    assertTrue(
        new String(summary.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)
            .equals(summary));
    assertEquals("### 【严重】PAUSE_STORM 告警", m.lines().get(0)); // the title is kept whole
  }
}
