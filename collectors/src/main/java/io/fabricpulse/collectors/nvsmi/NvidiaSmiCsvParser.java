package io.fabricpulse.collectors.nvsmi;

import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.flag;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.integer;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.number;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.text;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits]} into one {@link
 * GpuEcc} per GPU row.
 *
 * <p>nvidia-smi separates values with ", " and does not quote. With a header ({@code --format=csv})
 * column names carry units ({@code memory.total [MiB]}) and values may too ({@code 81559 MiB});
 * both are stripped for the typed fields and kept as printed in {@code fields}. Any {@code
 * [N/A]}-style value is null, never 0 [TG-smi]. Lines starting with '#' and blank lines are skipped
 * (capture headers); a header line may appear again (several captures in one file).
 *
 * <p>The GPU number is the {@code index} field; without it, the row's position in the output
 * (nvidia-smi lists GPUs in index order).
 */
public final class NvidiaSmiCsvParser {
  private static final String SEPARATOR = ", ";
  // Query field names: "index", "ecc.errors.corrected.volatile.total", "memory.total [MiB]".
  private static final Pattern FIELD_NAME =
      Pattern.compile("^[A-Za-z_][A-Za-z0-9_.]*(?: \\[[^\\]]+\\])?$");

  /** Output of {@code --format=csv} (with header), possibly several header+rows blocks. */
  public ParseResult<GpuEcc> parseWithHeader(String text, SampleContext context, String source) {
    ParseResult<GpuEcc> result = new ParseResult<>();
    List<String> header = null;
    int row = 0;
    long lineNumber = 0;
    for (String line : text.lines().toList()) {
      lineNumber++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      List<String> cells = split(line);
      if (isHeader(cells)) {
        header = cells.stream().map(NvidiaSmiCsvParser::withoutUnit).toList();
        row = 0;
        continue;
      }
      if (header == null) {
        result.skip(source, lineNumber, "nvidia-smi CSV row before any header");
        continue;
      }
      addRow(header, cells, row++, context, source, lineNumber, result);
    }
    return result;
  }

  /**
   * Output of {@code --format=csv,noheader[,nounits]} for the given query fields, in the order they
   * were passed to {@code --query-gpu}.
   */
  public ParseResult<GpuEcc> parse(
      List<String> queryFields, String text, SampleContext context, String source) {
    ParseResult<GpuEcc> result = new ParseResult<>();
    int row = 0;
    long lineNumber = 0;
    for (String line : text.lines().toList()) {
      lineNumber++;
      if (line.isBlank()) {
        continue;
      }
      addRow(queryFields, split(line), row++, context, source, lineNumber, result);
    }
    return result;
  }

  private static void addRow(
      List<String> header,
      List<String> cells,
      int row,
      SampleContext context,
      String source,
      long lineNumber,
      ParseResult<GpuEcc> result) {
    if (cells.size() != header.size()) {
      result.skip(
          source,
          lineNumber,
          "expected " + header.size() + " nvidia-smi values, found " + cells.size());
      return;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < header.size(); i++) {
      fields.put(header.get(i), cells.get(i));
    }
    Integer index = integer(fields.get("index"));
    result.add(toRecord(fields, index != null ? index : row, context));
  }

  /** Maps query fields (by their nvidia-smi names) to the typed GpuEcc fields. */
  static GpuEcc toRecord(Map<String, String> fields, int gpu, SampleContext context) {
    return GpuEcc.newBuilder()
        .setCluster(context.cluster())
        .setNode(context.node())
        .setBootId(context.bootId())
        .setSeq(context.nextSeq())
        .setTime(context.time())
        .setGpu(gpu)
        .setUuid(text(fields.get("uuid")))
        .setPciBusId(text(fields.get("pci.bus_id")))
        .setName(text(fields.get("name")))
        .setEccMode(text(fields.get("ecc.mode.current")))
        .setEccCorrectedVolatile(number(fields.get("ecc.errors.corrected.volatile.total")))
        .setEccUncorrectedVolatile(number(fields.get("ecc.errors.uncorrected.volatile.total")))
        .setEccCorrectedAggregate(number(fields.get("ecc.errors.corrected.aggregate.total")))
        .setEccUncorrectedAggregate(number(fields.get("ecc.errors.uncorrected.aggregate.total")))
        .setRetiredPagesSbe(number(fields.get("retired_pages.single_bit_ecc.count")))
        .setRetiredPagesDbe(number(fields.get("retired_pages.double_bit.count")))
        .setRetiredPagesPending(flag(fields.get("retired_pages.pending")))
        .setRemappedRowsCorrectable(number(fields.get("remapped_rows.correctable")))
        .setRemappedRowsUncorrectable(number(fields.get("remapped_rows.uncorrectable")))
        .setRemappedRowsPending(flag(fields.get("remapped_rows.pending")))
        .setRemappedRowsFailure(flag(fields.get("remapped_rows.failure")))
        .setTemperatureGpu(integer(fields.get("temperature.gpu")))
        .setTemperatureMemory(integer(fields.get("temperature.memory")))
        .setFields(new LinkedHashMap<>(fields))
        .build();
  }

  private static List<String> split(String line) {
    return new ArrayList<>(Arrays.stream(line.split(SEPARATOR, -1)).map(String::strip).toList());
  }

  /** A header names fields: every cell looks like a query field name, and some has a dot. */
  private static boolean isHeader(List<String> cells) {
    boolean anyDotted = false;
    for (String cell : cells) {
      if (!FIELD_NAME.matcher(cell).matches()) {
        return false;
      }
      anyDotted |= cell.contains(".");
    }
    return anyDotted;
  }

  private static String withoutUnit(String column) {
    int bracket = column.indexOf(" [");
    return bracket < 0 ? column : column.substring(0, bracket);
  }
}
