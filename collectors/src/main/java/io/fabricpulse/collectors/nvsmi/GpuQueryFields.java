package io.fabricpulse.collectors.nvsmi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which {@code --query-gpu} fields this driver knows, read from {@code nvidia-smi --help-query-gpu}
 * [NGE-fields]. Asking for an unknown field makes nvidia-smi fail the whole query, and the field
 * set changes across drivers (remapped_rows.* from R450, the ecc.errors.*.sram split later), so the
 * collector intersects its wish list with this.
 *
 * <p>The help text lists each property on its own line as a quoted name, optionally with aliases:
 * {@code "pci.bus_id" or "gpu_bus_id"}, followed by a description.
 */
public final class GpuQueryFields {
  /** What the GPU collector asks for when the driver supports it (GpuEcc's fields). */
  public static final List<String> WANTED =
      List.of(
          "index",
          "uuid",
          "pci.bus_id",
          "name",
          "ecc.mode.current",
          "ecc.errors.corrected.volatile.total",
          "ecc.errors.uncorrected.volatile.total",
          "ecc.errors.corrected.aggregate.total",
          "ecc.errors.uncorrected.aggregate.total",
          "retired_pages.single_bit_ecc.count",
          "retired_pages.double_bit.count",
          "retired_pages.pending",
          "remapped_rows.correctable",
          "remapped_rows.uncorrectable",
          "remapped_rows.pending",
          "remapped_rows.failure",
          "temperature.gpu",
          "temperature.memory");

  private static final Pattern PROPERTY_LINE =
      Pattern.compile("^\"([A-Za-z0-9_.]+)\"((?:\\s+or\\s+\"[A-Za-z0-9_.]+\")*)\\s*$");
  private static final Pattern ALIAS = Pattern.compile("\"([A-Za-z0-9_.]+)\"");

  /** Every name the help text accepts, mapped to the property's first (canonical) name. */
  private final Map<String, String> canonicalByName;

  private GpuQueryFields(Map<String, String> canonicalByName) {
    this.canonicalByName = canonicalByName;
  }

  /** Reads the output of {@code nvidia-smi --help-query-gpu}. */
  public static GpuQueryFields fromHelpText(String helpText) {
    Map<String, String> names = new LinkedHashMap<>();
    for (String line : helpText.lines().toList()) {
      Matcher m = PROPERTY_LINE.matcher(line.strip());
      if (!m.matches()) {
        continue;
      }
      String canonical = m.group(1);
      names.putIfAbsent(canonical, canonical);
      Matcher alias = ALIAS.matcher(m.group(2));
      while (alias.find()) {
        names.putIfAbsent(alias.group(1), canonical);
      }
    }
    return new GpuQueryFields(names);
  }

  public boolean supports(String field) {
    return canonicalByName.containsKey(field);
  }

  /** The wanted fields this driver supports, in the order wanted. */
  public List<String> supported(List<String> wanted) {
    List<String> fields = new ArrayList<>();
    for (String field : wanted) {
      if (supports(field)) {
        fields.add(field);
      }
    }
    return fields;
  }

  /** How many property names (with aliases) the help text listed. */
  public int size() {
    return canonicalByName.size();
  }
}
