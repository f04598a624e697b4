package io.fabricpulse.collectors.ethtool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real ethtool binary is never run here: a small shell script stands in for it, so the test
 * exercises the process handling (argv, output, exit status, timeout) on any machine.
 */
class CommandEthtoolSourceTest {
  @TempDir Path dir;

  private Path script(String body) throws IOException {
    Path script = dir.resolve("fake-ethtool");
    Files.writeString(script, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  @Test
  void runsEthtoolDashSWithTheNetdevAsItsOwnArgument() throws IOException {
    Path fake = script("echo \"NIC statistics:\"; echo \"     args: $#\"; echo \"     $1: 7\"");
    CommandEthtoolSource source =
        new CommandEthtoolSource(fake.toString(), Duration.ofSeconds(10), dir);

    String text = source.stats("ens5f0np0");

    assertEquals("NIC statistics:\n     args: 2\n     -S: 7\n", text);
    assertEquals(
        List.of("ethtool", "-S", "ens5f0np0"),
        CommandEthtoolSource.defaults().command("ens5f0np0"));
  }

  @Test
  void nonZeroExitBecomesAnIOExceptionWithStderr() throws IOException {
    Path fake = script("echo 'Cannot get stats information: Operation not supported' >&2; exit 94");
    CommandEthtoolSource source =
        new CommandEthtoolSource(fake.toString(), Duration.ofSeconds(10), dir);

    IOException e = assertThrows(IOException.class, () -> source.stats("lo"));
    assertTrue(e.getMessage().contains("exit 94"), e.getMessage());
    assertTrue(e.getMessage().contains("Operation not supported"), e.getMessage());
  }

  @Test
  void hungCommandIsKilledAfterTheTimeout() throws IOException {
    Path fake = script("exec sleep 30");
    CommandEthtoolSource source =
        new CommandEthtoolSource(fake.toString(), Duration.ofMillis(300), dir);

    IOException e = assertThrows(IOException.class, () -> source.stats("eth0"));
    assertTrue(e.getMessage().contains("no answer within"), e.getMessage());
  }

  @Test
  void optionLikeOrPathLikeNamesAreRefused() {
    CommandEthtoolSource source = CommandEthtoolSource.defaults();
    for (String bad : new String[] {"-i", "eth0 -s", "../eth0", "", "a234567890123456"}) {
      assertThrows(IllegalArgumentException.class, () -> source.command(bad), bad);
    }
  }

  @Test
  void driverIsTheNameOfTheDeviceDriverSymlink() throws IOException {
    Path device = Files.createDirectories(dir.resolve("class/net/ens5f0np0/device"));
    Path driverDir = Files.createDirectories(dir.resolve("bus/pci/drivers/mlx5_core"));
    Files.createSymbolicLink(device.resolve("driver"), driverDir);
    Files.createDirectories(dir.resolve("class/net/bond0"));
    CommandEthtoolSource source = new CommandEthtoolSource("ethtool", Duration.ofSeconds(1), dir);

    assertEquals("mlx5_core", source.driver("ens5f0np0"));
    assertNull(source.driver("bond0"));
  }
}
