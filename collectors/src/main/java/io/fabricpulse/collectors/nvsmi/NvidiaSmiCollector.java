package io.fabricpulse.collectors.nvsmi;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.io.IOException;
import java.util.List;

/**
 * One GPU sample: {@code --query-gpu} with the fields this driver supports (asked once through
 * {@code --help-query-gpu}, since asking for an unknown field fails the whole query), and {@code
 * nvidia-smi -q} when the query interface fails or returns no row. A failure of both is one skipped
 * input, never thrown.
 */
public final class NvidiaSmiCollector {
  static final String QUERY_SOURCE = "nvidia-smi --query-gpu";
  static final String Q_SOURCE = "nvidia-smi -q";

  private final NvidiaSmiSource source;
  private final NvidiaSmiCsvParser csvParser = new NvidiaSmiCsvParser();
  private final NvidiaSmiQParser qParser = new NvidiaSmiQParser();
  private List<String> fields;

  public NvidiaSmiCollector(NvidiaSmiSource source) {
    this.source = source;
  }

  public ParseResult<GpuEcc> collect(SampleContext context) throws InterruptedException {
    ParseResult<GpuEcc> result = new ParseResult<>();
    String queryFailure = null;
    List<String> supported = supportedFields(result);
    if (!supported.isEmpty()) {
      try {
        ParseResult<GpuEcc> parsed =
            csvParser.parse(supported, source.queryGpu(supported), context, QUERY_SOURCE);
        if (!parsed.records().isEmpty()) {
          return parsed;
        }
        queryFailure = "no GPU row";
        result.addAll(parsed);
      } catch (IOException e) {
        queryFailure = e.getMessage();
      }
    }
    try {
      result.addAll(qParser.parse(source.queryAll(), context, Q_SOURCE));
    } catch (IOException e) {
      result.skip(
          "nvidia-smi",
          0,
          (queryFailure == null ? "" : "query failed (" + queryFailure + "), ")
              + "-q failed: "
              + e.getMessage());
    }
    return result;
  }

  /** The query fields, discovered on the first successful {@code --help-query-gpu}. */
  public List<String> fields() {
    return fields;
  }

  private List<String> supportedFields(ParseResult<GpuEcc> result) throws InterruptedException {
    if (fields == null) {
      try {
        fields =
            GpuQueryFields.fromHelpText(source.helpQueryGpu()).supported(GpuQueryFields.WANTED);
      } catch (IOException e) {
        // Retried next cycle: a driver being loaded answers later.
        result.skip("nvidia-smi --help-query-gpu", 0, e.getMessage());
        return List.of();
      }
    }
    return fields;
  }
}
