package io.fabricpulse.collectors.sysfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tree on disk: what a read returns, and absence told from the read itself. */
class DirectorySysfsTreeTest {

  @Test
  void readsAFileExactlyAndTellsAnAbsentOneByNull(@TempDir Path root) throws IOException {
    Path port = Files.createDirectories(root.resolve("class/infiniband/mlx5_0/ports/1"));
    Files.writeString(port.resolve("rate"), "400 Gb/sec (4X NDR)\n");
    DirectorySysfsTree tree = new DirectorySysfsTree(root);

    assertEquals("400 Gb/sec (4X NDR)\n", tree.read("class/infiniband/mlx5_0/ports/1/rate"));
    assertEquals(
        "400 Gb/sec (4X NDR)\n", tree.readIfPresent("class/infiniband/mlx5_0/ports/1/rate"));
    assertNull(tree.readIfPresent("class/infiniband/mlx5_0/ports/1/link_layer"));
    assertNull(tree.readIfPresent("class/infiniband/mlx5_9/ports/1/rate"));
    assertThrows(
        NoSuchFileException.class, () -> tree.read("class/infiniband/mlx5_0/ports/1/state"));
    assertEquals(List.of("1"), tree.list("class/infiniband/mlx5_0/ports"));
  }

  @Test
  void aFileLongerThanAPageIsReadWholeAndTheNextShortOneAlone(@TempDir Path root)
      throws IOException {
    String longText = "x".repeat(20_000) + "\n";
    Files.writeString(root.resolve("long"), longText);
    Files.writeString(root.resolve("short"), "7\n");
    DirectorySysfsTree tree = new DirectorySysfsTree(root);

    assertEquals(longText, tree.read("long"));
    assertEquals("7\n", tree.read("short"));
  }

  @Test
  void invalidUtf8IsReplacedNotFatal(@TempDir Path root) throws IOException {
    Files.write(root.resolve("bad"), new byte[] {'4', (byte) 0xff, '\n'});
    String text = new DirectorySysfsTree(root).read("bad");
    assertEquals(new String(new byte[] {'4', (byte) 0xff, '\n'}, StandardCharsets.UTF_8), text);
  }

  @Test
  void readingADirectoryIsAnError(@TempDir Path root) throws IOException {
    Files.createDirectories(root.resolve("counters"));
    assertThrows(IOException.class, () -> new DirectorySysfsTree(root).read("counters"));
  }
}
