package io.fabricpulse.collectors.nccl;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.nccl.NcclKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Finds and parses the NCCL captures: real ones in collectors/testdata/nccl, synthetic ones in
 * src/test/resources/nccl.
 */
final class NcclSamples {
  static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  static final NodeIdentity NODE = new NodeIdentity("lab", "gpu017", "boot-1");

  private NcclSamples() {}

  /** The real capture {@code collectors/testdata/nccl/<name>.txt}. */
  static Path real(String name) {
    return Samples.path("nccl/" + name + ".txt");
  }

  /** A synthetic fixture under src/test/resources/nccl. */
  static Path synthetic(String fileName) {
    return Samples.resourcePath("nccl/" + fileName);
  }

  static Parsed parse(Path file) {
    return parse(file, null);
  }

  static Parsed parse(Path file, String job) {
    try {
      List<String> texts = Files.readAllLines(file, StandardCharsets.UTF_8);
      NcclLineParser parser = new NcclLineParser();
      ParseResult<NcclLog> result =
          parser.parseAll(
              NcclLineParser.linesOf(file.toString(), texts, job), SampleContext.of(NODE, T0));
      return new Parsed(result, parser.nonNcclLines());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  record Parsed(ParseResult<NcclLog> result, long nonNcclLines) {
    List<NcclLog> records() {
      return result.records();
    }

    List<NcclLog> ofKind(NcclKind kind) {
      return records().stream().filter(r -> kind.name().equals(r.getKind())).toList();
    }

    Map<String, Long> kindCounts() {
      return records().stream()
          .collect(Collectors.groupingBy(NcclLog::getKind, Collectors.counting()));
    }
  }
}
