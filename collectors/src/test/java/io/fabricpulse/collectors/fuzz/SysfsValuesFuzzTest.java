package io.fabricpulse.collectors.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import io.fabricpulse.collectors.testing.Samples;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12, fault 6, for the sysfs values (counters, rate, state, link_layer, ...): the content of
 * one file of a real sysfs capture mutated by {@link LineMutator}, {@value
 * ParserFuzzTest#DEFAULT_MUTATIONS} times per capture (seeded like {@link ParserFuzzTest}). The
 * reader must not throw, keep every port, keep every other counter's value (as many valued counters
 * as with that file gone), and count a counter it could no longer read as malformed.
 */
class SysfsValuesFuzzTest {
  private static final NodeIdentity NODE = new NodeIdentity("fuzz", "gpu001", "boot-1");
  private static final Instant TIME = Instant.parse("2024-07-31T11:22:39Z");

  @TempDir Path tmp;

  /** Ports, counters with a value, and malformed files of one read. */
  record Outcome(int ports, int valued, int malformed) {}

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "node_exporter-i40iw0-iwarp.ttar.txt",
        "procfs-mlx4_0-qdr-2port.ttar.txt",
        "procfs-mlx5_0-hw_counters.ttar.txt"
      })
  void mutatedValuesNeverEscapeNorLoseAnotherCounter(String capture) {
    MutatedTree tree = new MutatedTree(new DirectorySysfsTree(Samples.unpackSysfs(capture, tmp)));
    Outcome baseline = read(tree);
    List<String> files = new ArrayList<>(tree.read);
    LineMutator mutator = new LineMutator(ParserFuzzTest.SEED ^ capture.hashCode());
    Map<String, Outcome> withoutFile = new HashMap<>();
    List<String> failures = new ArrayList<>();
    int failed = 0;
    long start = System.nanoTime();
    for (int i = 0; i < ParserFuzzTest.MUTATIONS; i++) {
      String file = files.get(mutator.random().nextInt(files.size()));
      String content = tree.original(file);
      String value = content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
      LineMutator.Kind kind = mutator.nextKind();
      String mutated = mutator.mutate(value, kind);
      if (kind != LineMutator.Kind.TRUNCATE_FILE && content.endsWith("\n")) {
        mutated += "\n";
      }
      Outcome floor =
          withoutFile.computeIfAbsent(
              file,
              f -> {
                tree.remove(f);
                return read(tree);
              });
      tree.replace(file, mutated);
      String problem;
      try {
        Outcome got = read(tree);
        problem = check(baseline, floor, got);
      } catch (RuntimeException e) {
        problem = "threw " + e;
      }
      if (problem != null) {
        failed++;
        if (failures.size() < 5) {
          failures.add(
              String.format(
                  "%s %s, %s (seed %d, mutation %d): %s; mutated to '%s'",
                  capture,
                  file,
                  kind,
                  ParserFuzzTest.SEED,
                  i,
                  problem,
                  mutated.length() > 80 ? mutated.substring(0, 80) + "..." : mutated));
        }
      }
    }
    tree.replace(null, null);
    System.out.printf(
        "fuzz sysfs %s: %d mutated values of %d files, %d failed, %d ms%n",
        capture,
        ParserFuzzTest.MUTATIONS,
        files.size(),
        failed,
        (System.nanoTime() - start) / 1_000_000);
    if (!failures.isEmpty()) {
      fail(failed + " mutated values failed; the first:\n  " + String.join("\n  ", failures));
    }
    assertEquals(0, failed);
  }

  private static String check(Outcome baseline, Outcome floor, Outcome got) {
    if (got.ports() != baseline.ports()) {
      return got.ports() + " ports instead of " + baseline.ports();
    }
    if (got.valued() < floor.valued()) {
      return got.valued()
          + " counters with a value, fewer than the "
          + floor.valued()
          + " without the file";
    }
    if (got.valued() < baseline.valued() && got.malformed() <= baseline.malformed()) {
      return "a counter lost its value and no malformed file was counted";
    }
    return null;
  }

  private static Outcome read(SysfsTree tree) {
    ParseResult<PortCounters> result =
        new SysfsPortCounterReader(tree).read(SampleContext.of(NODE, TIME));
    int valued = 0;
    for (PortCounters port : result.records()) {
      for (Counter counter : port.getCounters()) {
        if (counter.getValue() != null) {
          valued++;
        }
      }
    }
    return new Outcome(result.records().size(), valued, result.malformed().size());
  }

  /**
   * The unpacked capture, read once into memory, with one file replaced or removed; records which
   * files the reader reads (those are the ones mutated).
   */
  static final class MutatedTree implements SysfsTree {
    private final SysfsTree disk;
    private final Map<String, String> contents = new HashMap<>();
    private final Map<String, List<String>> listings = new HashMap<>();
    private final Map<String, Boolean> existing = new HashMap<>();
    final Set<String> read = new LinkedHashSet<>();
    private String mutatedPath;
    private String mutatedContent;

    MutatedTree(SysfsTree disk) {
      this.disk = disk;
    }

    String original(String path) {
      return contents.get(path);
    }

    /** Serves {@code content} for {@code path}; a null content removes the file. */
    void replace(String path, String content) {
      mutatedPath = path;
      mutatedContent = content;
    }

    void remove(String path) {
      replace(path, null);
    }

    @Override
    public List<String> list(String relDir) {
      return listings.computeIfAbsent(relDir, disk::list);
    }

    @Override
    public String read(String relPath) throws IOException {
      if (relPath.equals(mutatedPath)) {
        if (mutatedContent == null) {
          throw new NoSuchFileException(relPath);
        }
        return mutatedContent;
      }
      String content = contents.get(relPath);
      if (content == null) {
        content = disk.read(relPath);
        contents.put(relPath, content);
        read.add(relPath);
      }
      return content;
    }

    @Override
    public boolean exists(String relPath) {
      if (relPath.equals(mutatedPath) && mutatedContent == null) {
        return false;
      }
      return existing.computeIfAbsent(relPath, disk::exists);
    }

    @Override
    public String toString() {
      return "MutatedTree[" + disk + "]";
    }
  }
}
