package io.fabricpulse.collectors.nvsmi;

import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.flag;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.integer;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.number;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.sum;
import static io.fabricpulse.collectors.nvsmi.NvidiaSmiValues.text;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi -q} text (the fallback when {@code --query-gpu} is unavailable) into one
 * {@link GpuEcc} per {@code GPU <bus id>} block.
 *
 * <p>The text is an indented tree ("Section" lines, "Key : Value" lines, 4 spaces per level). Every
 * value is kept in {@code fields} under its path, e.g. {@code ECC Errors/Volatile/DRAM
 * Correctable}. Two ECC layouts exist:
 *
 * <ul>
 *   <li>old (Kepler to Volta): {@code ECC Errors/Volatile/Single Bit/Total} and {@code .../Double
 *       Bit/Total};
 *   <li>new (Ampere and later): {@code SRAM Correctable}, {@code SRAM Uncorrectable} (535+ splits
 *       it into {@code Parity} and {@code SEC-DED}), {@code DRAM Correctable}, {@code DRAM
 *       Uncorrectable}; corrected = SRAM + DRAM correctable, uncorrected = the sum of the
 *       uncorrectable ones, as the CSV {@code .total} fields count them.
 * </ul>
 *
 * {@code N/A} is null, never 0. Lines reading {@code [...]} (elisions in pasted output) are
 * skipped. The GPU number is the block's position in the output (nvidia-smi prints GPUs in index
 * order); {@code Minor Number} is the /dev/nvidiaN number, not the index.
 */
public final class NvidiaSmiQParser {
  private static final Pattern GPU_HEADER =
      Pattern.compile("^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f])\\s*$");
  private static final Pattern KEY_VALUE = Pattern.compile("^(\\S.*?)\\s+:\\s?(.*)$");
  private static final String[] SCOPES = {"Volatile", "Aggregate"};

  public ParseResult<GpuEcc> parse(String text, SampleContext context, String source) {
    ParseResult<GpuEcc> result = new ParseResult<>();
    Map<String, String> topLevel = new LinkedHashMap<>();
    Map<String, String> gpuFields = null;
    String busId = null;
    Deque<Section> sections = new ArrayDeque<>();
    int ordinal = 0;
    for (String line : text.lines().toList()) {
      String content = line.strip();
      if (content.isEmpty() || content.equals("[...]") || content.startsWith("====")) {
        continue;
      }
      Matcher header = GPU_HEADER.matcher(line);
      if (header.matches()) {
        if (gpuFields != null) {
          result.add(toRecord(busId, gpuFields, ordinal++, context));
        }
        busId = header.group(1);
        gpuFields = new LinkedHashMap<>(topLevel);
        sections.clear();
        continue;
      }
      int indent = line.length() - line.stripLeading().length();
      while (!sections.isEmpty() && sections.peek().indent >= indent) {
        sections.pop();
      }
      Matcher kv = KEY_VALUE.matcher(content);
      if (kv.matches()) {
        Map<String, String> target = gpuFields != null ? gpuFields : topLevel;
        target.put(path(sections, kv.group(1)), kv.group(2).strip());
      } else {
        sections.push(new Section(indent, content));
      }
    }
    if (gpuFields != null) {
      result.add(toRecord(busId, gpuFields, ordinal, context));
    } else if (!text.isBlank()) {
      result.skip(source, 0, "no 'GPU <bus id>' block in nvidia-smi -q output");
    }
    return result;
  }

  private static GpuEcc toRecord(
      String busId, Map<String, String> f, int ordinal, SampleContext context) {
    GpuEcc.Builder record =
        GpuEcc.newBuilder()
            .setCluster(context.cluster())
            .setNode(context.node())
            .setBootId(context.bootId())
            .setSeq(context.nextSeq())
            .setTime(context.time())
            .setGpu(ordinal)
            .setUuid(text(f.get("GPU UUID")))
            .setPciBusId(busId)
            .setName(text(f.get("Product Name")))
            .setEccMode(text(f.get("ECC Mode/Current")))
            .setRetiredPagesSbe(number(f.get("Retired Pages/Single Bit ECC")))
            .setRetiredPagesDbe(number(f.get("Retired Pages/Double Bit ECC")))
            .setRetiredPagesPending(
                flag(
                    first(
                        f,
                        "Retired Pages/Pending Page Blacklist",
                        "Retired Pages/Pending Page Retirement",
                        "Retired Pages/Pending")))
            .setRemappedRowsCorrectable(number(f.get("Remapped Rows/Correctable Error")))
            .setRemappedRowsUncorrectable(number(f.get("Remapped Rows/Uncorrectable Error")))
            .setRemappedRowsPending(flag(f.get("Remapped Rows/Pending")))
            .setRemappedRowsFailure(flag(f.get("Remapped Rows/Remapping Failure Occurred")))
            .setTemperatureGpu(integer(f.get("Temperature/GPU Current Temp")))
            .setTemperatureMemory(integer(f.get("Temperature/Memory Current Temp")))
            .setFields(f);
    for (String scope : SCOPES) {
      String prefix = "ECC Errors/" + scope + "/";
      Long corrected;
      Long uncorrected;
      if (f.containsKey(prefix + "Single Bit/Total")
          || f.containsKey(prefix + "Double Bit/Total")) {
        corrected = number(f.get(prefix + "Single Bit/Total"));
        uncorrected = number(f.get(prefix + "Double Bit/Total"));
      } else {
        corrected = sum(f.get(prefix + "SRAM Correctable"), f.get(prefix + "DRAM Correctable"));
        uncorrected =
            sum(
                f.get(prefix + "SRAM Uncorrectable"),
                f.get(prefix + "SRAM Uncorrectable Parity"),
                f.get(prefix + "SRAM Uncorrectable SEC-DED"),
                f.get(prefix + "DRAM Uncorrectable"));
      }
      if (scope.equals("Volatile")) {
        record.setEccCorrectedVolatile(corrected).setEccUncorrectedVolatile(uncorrected);
      } else {
        record.setEccCorrectedAggregate(corrected).setEccUncorrectedAggregate(uncorrected);
      }
    }
    return record.build();
  }

  private static String first(Map<String, String> fields, String... keys) {
    for (String key : keys) {
      if (fields.containsKey(key)) {
        return fields.get(key);
      }
    }
    return null;
  }

  private static String path(Deque<Section> sections, String key) {
    StringBuilder path = new StringBuilder();
    var it = sections.descendingIterator();
    while (it.hasNext()) {
      path.append(it.next().name).append('/');
    }
    return path.append(key).toString();
  }

  private record Section(int indent, String name) {}
}
