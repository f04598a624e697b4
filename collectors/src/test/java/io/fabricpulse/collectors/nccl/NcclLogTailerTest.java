package io.fabricpulse.collectors.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclLogTailerTest {
  private static final Pattern SLURM_JOB = Pattern.compile("slurm-(\\d+)\\.out");

  @TempDir Path dir;

  @Test
  void readsExistingFileFromItsStartWithLineNumbersAndJob() throws IOException {
    Path file = dir.resolve("slurm-4242.out");
    write(file, "banner\nh1:1:1 [0] NCCL INFO Using network IB\n");
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/slurm-*.out"), SLURM_JOB);

    List<NcclLogLine> lines = tailer.poll();

    assertEquals(
        List.of(
            new NcclLogLine(file.toString(), 1, "banner", "4242"),
            new NcclLogLine(file.toString(), 2, "h1:1:1 [0] NCCL INFO Using network IB", "4242")),
        lines);
    assertEquals(List.of(), tailer.poll(), "nothing new");
  }

  @Test
  void returnsOnlyCompleteLinesAndContinuesNumbering() throws IOException {
    Path file = dir.resolve("job.log");
    write(file, "line one\nline t");
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/*.log"), null);

    assertEquals(List.of("line one"), texts(tailer.poll()));
    append(file, "wo\r\nline three\n");
    List<NcclLogLine> next = tailer.poll();
    assertEquals(List.of("line two", "line three"), texts(next));
    assertEquals(2, next.get(0).lineNo());
    assertEquals(3, next.get(1).lineNo());
    assertNull(next.get(0).job());
  }

  @Test
  void picksUpNewFilesAndForgetsDeletedOnes() throws IOException {
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/*.log"), null);
    assertEquals(List.of(), tailer.poll());

    Path first = dir.resolve("a.log");
    write(first, "a1\n");
    write(dir.resolve("ignored.txt"), "not matched\n");
    assertEquals(List.of("a1"), texts(tailer.poll()));

    Path second = dir.resolve("b.log");
    write(second, "b1\n");
    Files.delete(first);
    List<NcclLogLine> lines = tailer.poll();
    assertEquals(List.of("b1"), texts(lines));
    assertEquals(second.toString(), lines.get(0).file());
    assertEquals(java.util.Set.of(second), tailer.followedFiles());
  }

  @Test
  void truncatedFileIsReadAgainFromTheStart() throws IOException {
    Path file = dir.resolve("run.log");
    write(file, "first run line 1\nfirst run line 2\n");
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/*.log"), null);
    assertEquals(2, tailer.poll().size());

    write(file, "second\n");
    List<NcclLogLine> lines = tailer.poll();
    assertEquals(List.of("second"), texts(lines));
    assertEquals(1, lines.get(0).lineNo());
  }

  @Test
  void replacedFileAtTheSamePathIsReadFromTheStart() throws IOException {
    Path file = dir.resolve("run.log");
    write(file, "old 1\nold 2\nold 3\n");
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/*.log"), null);
    assertEquals(3, tailer.poll().size());

    Path replacement = dir.resolve("run.log.new");
    write(replacement, "new 1\nnew 2\nnew 3\nnew 4\n");
    Files.move(replacement, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertEquals(List.of("new 1", "new 2", "new 3", "new 4"), texts(tailer.poll()));
  }

  @Test
  void ncclDebugFilePatternMatchesHostAndPidInSubdirectories() throws IOException {
    Files.createDirectories(dir.resolve("job7"));
    Path file = dir.resolve("job7/nccl.gpu017.31337.log");
    write(file, "gpu017:31337:31337 [0] NCCL INFO NCCL version 2.27.5+cuda12.9\n");
    write(dir.resolve("job7/other.log"), "x\n");
    NcclLogTailer tailer =
        new NcclLogTailer(List.of(dir + "/*/nccl.%h.%p.log"), Pattern.compile("/job(\\d+)/"));

    List<NcclLogLine> lines = tailer.poll();
    assertEquals(1, lines.size());
    assertEquals("7", lines.get(0).job());
    assertTrue(lines.get(0).text().endsWith("NCCL version 2.27.5+cuda12.9"));
  }

  @Test
  void recursiveGlobFindsNestedSlurmOutputs() throws IOException {
    Files.createDirectories(dir.resolve("u/alice/run"));
    write(dir.resolve("u/alice/run/slurm-99.out"), "h:1:1 [0] NCCL INFO Using network IB\n");
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/**/slurm-*.out"), SLURM_JOB);
    List<NcclLogLine> lines = tailer.poll();
    assertEquals(1, lines.size());
    assertEquals("99", lines.get(0).job());
  }

  @Test
  void bigBacklogIsReadInBoundedSteps() throws IOException {
    Path file = dir.resolve("big.log");
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 5000; i++) {
      text.append("h:1:1 [0] NCCL INFO line ").append(i).append('\n');
    }
    write(file, text.toString());
    NcclLogTailer tailer =
        new NcclLogTailer(List.of(dir + "/*.log"), null, NcclLogTailer.MAX_LINE_BYTES);

    List<NcclLogLine> first = tailer.poll();
    assertTrue(first.size() < 5000, "one poll reads at most its byte budget");
    long total = first.size();
    long lastLineNo = first.get(first.size() - 1).lineNo();
    for (List<NcclLogLine> more = tailer.poll(); !more.isEmpty(); more = tailer.poll()) {
      assertEquals(lastLineNo + 1, more.get(0).lineNo());
      lastLineNo = more.get(more.size() - 1).lineNo();
      total += more.size();
    }
    assertEquals(5000, total);
    assertEquals(5000, lastLineNo);
  }

  @Test
  void tailedSampleParsesLikeTheWholeFile() throws IOException {
    Path sample = NcclSamples.real("mleng-azure-ib-warn-completion-error12");
    Path file = dir.resolve("slurm-5776.out");
    Files.copy(sample, file);
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/slurm-*.out"), SLURM_JOB);
    NcclLineParser parser = new NcclLineParser();
    var out = new io.fabricpulse.collectors.core.ParseResult<io.fabricpulse.avro.NcclLog>();
    var ctx = io.fabricpulse.collectors.core.SampleContext.of(NcclSamples.NODE, NcclSamples.T0);
    for (NcclLogLine line : tailer.poll()) {
      parser.parse(line, ctx, out);
    }
    parser.flush(out);
    assertEquals(5, out.records().size());
    assertEquals("5776", out.records().get(0).getJob());
    assertEquals("WARN", out.records().get(1).getKind());
    assertEquals(3, out.records().get(1).getLineNo());
  }

  @Test
  void aTailedFailureLineKeepsItsOwnTimeAndClass() throws IOException {
    Path sample =
        io.fabricpulse.collectors.testing.Samples.resourcePath(
            "nccl/nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init.txt");
    Path file = dir.resolve("slurm-4801.out");
    Files.copy(sample, file);
    NcclLogTailer tailer = new NcclLogTailer(List.of(dir + "/slurm-*.out"), SLURM_JOB);
    NcclLineParser parser = new NcclLineParser(java.time.ZoneOffset.UTC);
    var out = new io.fabricpulse.collectors.core.ParseResult<io.fabricpulse.avro.NcclLog>();
    // the agent polls later than the job wrote the lines
    var ctx =
        io.fabricpulse.collectors.core.SampleContext.of(
            NcclSamples.NODE, java.time.Instant.parse("2026-02-25T16:45:00Z"));
    for (NcclLogLine line : tailer.poll()) {
      parser.parse(line, ctx, out);
    }
    parser.flush(out);
    var warn = out.records().get(0);
    assertEquals(java.time.Instant.parse("2026-02-25T16:41:56Z"), warn.getTime());
    assertEquals("socket_connect", warn.getAttrs().get("failure"));
    assertEquals("4801", warn.getJob());
    var app = out.records().get(1);
    assertEquals("remote_exited", app.getAttrs().get("failure"));
    assertEquals(ctx.time(), app.getTime(), "no timestamp: the agent's read time");
  }

  private static List<String> texts(List<NcclLogLine> lines) {
    return lines.stream().map(NcclLogLine::text).toList();
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private static void append(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }
}
