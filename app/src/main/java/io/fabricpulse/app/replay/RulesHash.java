package io.fabricpulse.app.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The fingerprint of a rules directory: SHA-256 over every {@code *.yaml}/{@code *.yml} file's name
 * and bytes, in name order, shortened to 12 hex digits. Every replayed alert carries it as label
 * {@value #LABEL}, so a timeline always says which rules produced it.
 */
public final class RulesHash {
  public static final String LABEL = "rules_hash";

  private RulesHash() {}

  public static String of(Path rulesDir) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(rulesDir)) {
      files =
          list.filter(
                  p ->
                      p.getFileName().toString().endsWith(".yaml")
                          || p.getFileName().toString().endsWith(".yml"))
              .sorted()
              .toList();
    }
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JRE", e);
    }
    for (Path file : files) {
      sha.update(file.getFileName().toString().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(Files.readAllBytes(file));
      sha.update((byte) 0);
    }
    return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
  }
}
