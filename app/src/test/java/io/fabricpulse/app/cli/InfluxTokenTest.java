package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfluxTokenTest {

  @TempDir Path dir;

  @Test
  void theTokenComesFromTheVariableOrFromTheSecretFileItNames() throws Exception {
    assertArrayEquals(
        "abc".toCharArray(), InfluxToken.fromEnvironment(Map.of("INFLUX_TOKEN", "abc")));
    Path secret = Files.writeString(dir.resolve("influxdb-token"), "s3cr3t-token\n");
    assertArrayEquals(
        "s3cr3t-token".toCharArray(),
        InfluxToken.fromEnvironment(Map.of("INFLUX_TOKEN_FILE", secret.toString())));
    assertEquals(0, InfluxToken.fromEnvironment(Map.of()).length);
  }

  @Test
  void bothOrAnUnreadableFileIsAUsageErrorThatDoesNotPrintTheToken() throws Exception {
    Path secret = Files.writeString(dir.resolve("t"), "s3cr3t-token");
    CliFailure both =
        assertThrows(
            CliFailure.class,
            () ->
                InfluxToken.fromEnvironment(
                    Map.of(
                        "INFLUX_TOKEN", "s3cr3t-token", "INFLUX_TOKEN_FILE", secret.toString())));
    assertEquals(ExitCodes.USAGE, both.exitCode());
    assertTrue(!both.getMessage().contains("s3cr3t"), both.getMessage());
    CliFailure missing =
        assertThrows(
            CliFailure.class,
            () ->
                InfluxToken.fromEnvironment(
                    Map.of("INFLUX_TOKEN_FILE", dir.resolve("missing").toString())));
    assertTrue(
        missing.getMessage().startsWith(dir.resolve("missing") + ": cannot read"),
        missing.getMessage());
  }
}
