package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.bridges.testing.FakeDingTalkServer;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, security: the sentinel scan of the demo's own run and of its live status page. One
 * child JVM runs {@code demo} (embedded Kafka, registry, streams, QuestDB, the production bridges)
 * with sentinel secrets where an operator puts them: the WeCom key and the DingTalk token and
 * signing secret in the documented {@code FABRICPULSE_*} variables, delivered to local robots that
 * accept only those secrets; {@code INFLUX_TOKEN} in the environment (the demo's embedded broker
 * takes no Kafka credentials: {@code KafkaTlsIT} scans those); the status page's token in {@code
 * --status-token-file}. While it runs the status page is read with the token (its HTML and {@code
 * /api/status}); afterwards {@code --help} of every command runs in the same environment. Scanned
 * for every sentinel: the child's stdout and stderr (the logs: slf4j-simple writes to stderr), the
 * status page's answers, the requests the robots received (their bodies: the secrets belong only in
 * the URL and signature) and every file the run left in its data directory (Kafka's segments and
 * logs, QuestDB's tables and log, the streams state).
 */
class DemoSentinelSecretsIT {
  private static final Map<String, String> SENTINELS = new LinkedHashMap<>();

  static {
    SENTINELS.put("WeCom key", "sentinelDemoWecomKey41c8");
    SENTINELS.put("DingTalk token", "sentinelDemoDingtalkToken9e02");
    SENTINELS.put("DingTalk signing secret", "SECsentinelDemoDingtalkSecret73aa");
    SENTINELS.put("InfluxDB token", "sentinelDemoInfluxToken5b5b");
    SENTINELS.put("status page token", "sentinelDemoStatusToken2c2c");
  }

  @TempDir Path tmp;

  @Test
  void theDemoAndItsStatusPageShowNoSecret() throws Exception {
    long started = System.nanoTime();
    Clock clock = Clock.systemUTC();
    try (FakeWeComServer wecom = new FakeWeComServer(clock, SENTINELS.get("WeCom key"));
        FakeDingTalkServer dingtalk =
            new FakeDingTalkServer(
                clock,
                SENTINELS.get("DingTalk token"),
                SENTINELS.get("DingTalk signing secret"),
                "fabricpulse")) {
      Path data = tmp.resolve("data");
      Path token =
          Files.writeString(tmp.resolve("status-token"), SENTINELS.get("status page token"));
      int port = freePort();
      Map<String, String> env = new LinkedHashMap<>();
      env.put("FABRICPULSE_WECOM_KEY", SENTINELS.get("WeCom key"));
      env.put("FABRICPULSE_DINGTALK_TOKEN", SENTINELS.get("DingTalk token"));
      env.put("FABRICPULSE_DINGTALK_SECRET", SENTINELS.get("DingTalk signing secret"));
      env.put("FABRICPULSE_DINGTALK_KEYWORD", "fabricpulse");
      env.put("INFLUX_TOKEN", SENTINELS.get("InfluxDB token"));
      List<String[]> commands =
          List.of(
              new String[] {
                "demo",
                "--duration",
                "20s",
                "--nodes",
                "4",
                "--data-dir",
                data.toString(),
                "--status-port",
                Integer.toString(port),
                "--status-token-file",
                token.toString(),
                "--wecom-webhook",
                wecom.url(),
                "--dingtalk-webhook",
                dingtalk.url()
              },
              new String[] {"HELP-ALL"});
      Path out = tmp.resolve("stdout.txt");
      Path err = tmp.resolve("stderr.txt");
      Process child = SentinelCommands.start(commands, env, out, err);

      // the live page, read with the token while the demo runs
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + port + "/";
      List<String> page = new ArrayList<>();
      int refused = 0;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (page.isEmpty() && child.isAlive() && System.nanoTime() < deadline) {
        HttpResponse<String> status =
            get(http, base + "api/status", SENTINELS.get("status page token"));
        if (status != null
            && status.statusCode() == 200
            && status.body().matches("(?s).*\"updates\":[1-9].*")) {
          HttpResponse<String> html = get(http, base, SENTINELS.get("status page token"));
          assertEquals(200, html.statusCode());
          HttpResponse<String> without = get(http, base + "api/status", null);
          refused = without.statusCode();
          page.add(html.body());
          page.add(status.body());
          page.add(without.body());
        }
        LockSupport.parkNanos(500_000_000L);
      }
      boolean done = child.waitFor(6, TimeUnit.MINUTES);
      if (!done) {
        child.destroyForcibly();
      }
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertTrue(done, "the demo did not end in 6 minutes:\n" + tail(stdout) + tail(stderr));
      assertEquals(0, child.exitValue(), tail(stderr));
      assertTrue(stdout.contains("stopping after"), "the demo did not run:\n" + tail(stdout));
      assertEquals(
          3, page.size(), "the status page never answered with the token:\n" + tail(stdout));
      assertEquals(401, refused, "the status page answered without the token");
      assertTrue(stdout.contains("Usage: fabricpulse sink influx"), "no --help ran");
      assertTrue(
          !wecom.accepted().isEmpty() && !dingtalk.accepted().isEmpty(),
          "the robots got no message (so the secrets were never used):\n" + tail(stdout));

      Map<String, String> texts = new LinkedHashMap<>();
      texts.put("stdout", stdout);
      texts.put("stderr", stderr);
      for (int i = 0; i < page.size(); i++) {
        texts.put("status page answer " + (i + 1), page.get(i));
      }
      for (var robot : List.of(wecom, dingtalk)) {
        for (var request : robot.requests()) {
          texts.put("a robot's request body " + texts.size(), request.body().toString());
        }
      }
      List<String> leaks = new ArrayList<>();
      texts.forEach(
          (where, text) ->
              SENTINELS.forEach(
                  (what, value) -> {
                    int at = text.indexOf(value);
                    if (at >= 0) {
                      int start = text.lastIndexOf('\n', at) + 1;
                      int end = text.indexOf('\n', at);
                      leaks.add(
                          what
                              + " in "
                              + where
                              + ": "
                              + text.substring(start, end < 0 ? text.length() : end));
                    }
                  }));
      long[] files = new long[2];
      try (Stream<Path> all = Files.walk(data)) {
        for (Path file : all.filter(Files::isRegularFile).toList()) {
          byte[] bytes = Files.readAllBytes(file);
          files[0]++;
          files[1] += bytes.length;
          SENTINELS.forEach(
              (what, value) -> {
                if (indexOf(bytes, value.getBytes(StandardCharsets.US_ASCII)) >= 0) {
                  leaks.add(what + " in " + data.relativize(file));
                }
              });
        }
      }
      assertTrue(files[0] > 0, "the demo left no file in " + data);
      assertTrue(leaks.isEmpty(), String.join("\n", leaks));
      int summary = stdout.lastIndexOf("stopping after");
      System.out.println(stdout.substring(summary, Math.min(stdout.length(), summary + 3000)));
      System.out.printf(
          "demo sentinel scan: %d secrets; %d stdout and %d stderr bytes, %d status page answers"
              + " (%d bytes, with the token; 401 without), %d robot requests, %d files (%d bytes)"
              + " of the data directory; %d leaks; %d s%n",
          SENTINELS.size(),
          stdout.length(),
          stderr.length(),
          page.size(),
          page.stream().mapToInt(String::length).sum(),
          wecom.requests().size() + dingtalk.requests().size(),
          files[0],
          files[1],
          leaks.size(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }

  private static String tail(String text) {
    return text.length() <= 6000 ? text : "..." + text.substring(text.length() - 6000);
  }
}
