package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.nvsmi.GpuQueryFields;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The eight H100 GPUs of one simulated node and what {@code nvidia-smi} prints about them. Values
 * follow the real H100 capture (collectors/testdata/nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt): ECC
 * enabled, counters 0, retired_pages.* {@code [N/A]} (H100 remaps rows instead of retiring pages),
 * remapped_rows.pending/failure {@code No}, temperatures in the 40s.
 */
final class SimulatedGpus {
  static final int GPUS_PER_NODE = 8;
  static final String NAME = "NVIDIA H100 80GB HBM3";

  /** PCI buses of the eight GPUs of an HGX H100 board. */
  private static final int[] BUSES = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

  /** One GPU's state. */
  static final class Gpu {
    final int index;
    final String uuid;
    final int bus;
    final int baseTemperature;
    double correctedGrowth;
    long correctedVolatile;
    long correctedAggregate;
    long uncorrectedVolatile;
    long uncorrectedAggregate;
    long remappedCorrectable;
    long remappedUncorrectable;
    boolean remapPending;
    int temperature;
    Integer hotTemperature;

    Gpu(int index, String uuid, int bus, int baseTemperature) {
      this.index = index;
      this.uuid = uuid;
      this.bus = bus;
      this.baseTemperature = baseTemperature;
      this.temperature = baseTemperature;
    }

    /** The bus id nvidia-smi prints: 00000000:18:00.0. */
    String busId() {
      return String.format("00000000:%02X:00.0", bus);
    }

    /** The address the kernel's Xid lines print: PCI:0000:18:00. */
    String xidAddress() {
      return String.format("PCI:0000:%02x:00", bus);
    }
  }

  final List<Gpu> gpus = new ArrayList<>();
  private final SplittableRandom random;

  SimulatedGpus(long seed, String node) {
    this.random = new SplittableRandom(seed ^ node.hashCode() * 0x9E3779B97F4A7C15L);
    for (int i = 0; i < GPUS_PER_NODE; i++) {
      String uuid =
          "GPU-"
              + UUID.nameUUIDFromBytes(
                  (seed + "/" + node + "/gpu/" + i).getBytes(StandardCharsets.UTF_8));
      gpus.add(new Gpu(i, uuid, BUSES[i], 40 + random.nextInt(16)));
    }
  }

  /** One second: temperatures wander by a degree around their base; ECC growth accumulates. */
  void second() {
    for (Gpu gpu : gpus) {
      int next = gpu.temperature + random.nextInt(3) - 1;
      gpu.temperature = Math.max(gpu.baseTemperature - 3, Math.min(gpu.baseTemperature + 3, next));
    }
  }

  /** A driver reload: volatile ECC counters restart, pending remaps are applied. */
  void reboot() {
    for (Gpu gpu : gpus) {
      gpu.correctedVolatile = 0;
      gpu.uncorrectedVolatile = 0;
      gpu.remapPending = false;
    }
  }

  Gpu gpu(int index) {
    if (index < 0 || index >= gpus.size()) {
      throw new IllegalArgumentException("no GPU " + index + " (0.." + (gpus.size() - 1) + ")");
    }
    return gpus.get(index);
  }

  /** {@code nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits}. */
  String queryGpu(List<String> fields) {
    StringBuilder out = new StringBuilder();
    for (Gpu gpu : gpus) {
      List<String> values = new ArrayList<>();
      for (String field : fields) {
        values.add(value(gpu, field));
      }
      out.append(String.join(", ", values)).append('\n');
    }
    return out.toString();
  }

  private static String value(Gpu gpu, String field) {
    return switch (field) {
      case "index" -> Integer.toString(gpu.index);
      case "uuid", "gpu_uuid" -> gpu.uuid;
      case "pci.bus_id", "gpu_bus_id" -> gpu.busId();
      case "name", "gpu_name" -> NAME;
      case "ecc.mode.current" -> "Enabled";
      case "ecc.errors.corrected.volatile.total" -> Long.toString(gpu.correctedVolatile);
      case "ecc.errors.uncorrected.volatile.total" -> Long.toString(gpu.uncorrectedVolatile);
      case "ecc.errors.corrected.aggregate.total" -> Long.toString(gpu.correctedAggregate);
      case "ecc.errors.uncorrected.aggregate.total" -> Long.toString(gpu.uncorrectedAggregate);
      case "retired_pages.single_bit_ecc.count",
          "retired_pages.sbe",
          "retired_pages.double_bit.count",
          "retired_pages.dbe",
          "retired_pages.pending" ->
          "[N/A]";
      case "remapped_rows.correctable" -> Long.toString(gpu.remappedCorrectable);
      case "remapped_rows.uncorrectable" -> Long.toString(gpu.remappedUncorrectable);
      case "remapped_rows.pending" -> gpu.remapPending ? "Yes" : "No";
      case "remapped_rows.failure" -> "No";
      case "temperature.gpu" -> Integer.toString(temperature(gpu));
      case "temperature.memory" -> Integer.toString(temperature(gpu) + 7);
      default ->
          throw new IllegalArgumentException(
              "Field \"" + field + "\" is not a valid field to query.");
    };
  }

  private static int temperature(Gpu gpu) {
    return gpu.hotTemperature != null ? gpu.hotTemperature : gpu.temperature;
  }

  /**
   * {@code nvidia-smi -q}: the R535 Hopper layout of
   * collectors/testdata/nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08 (4 spaces per level, values from
   * column 44), reduced to the identity, ECC, retired pages, remapped rows and temperature
   * sections. Corrected and uncorrected errors are DRAM errors.
   */
  String queryAll(java.time.Instant now) {
    StringBuilder out = new StringBuilder("\n==============NVSMI LOG==============\n\n");
    kv(out, 0, "Timestamp", QUERY_TIME.format(now));
    kv(out, 0, "Driver Version", "535.183.01");
    kv(out, 0, "CUDA Version", "12.2");
    out.append('\n');
    kv(out, 0, "Attached GPUs", Integer.toString(gpus.size()));
    for (Gpu gpu : gpus) {
      out.append("GPU ").append(gpu.busId()).append('\n');
      kv(out, 1, "Product Name", NAME);
      kv(out, 1, "Product Brand", "NVIDIA");
      kv(out, 1, "Product Architecture", "Hopper");
      kv(out, 1, "GPU UUID", gpu.uuid);
      section(out, 1, "ECC Mode");
      kv(out, 2, "Current", "Enabled");
      kv(out, 2, "Pending", "Enabled");
      section(out, 1, "ECC Errors");
      for (String scope : List.of("Volatile", "Aggregate")) {
        boolean volatileScope = scope.equals("Volatile");
        section(out, 2, scope);
        kv(out, 3, "SRAM Correctable", "0");
        kv(out, 3, "SRAM Uncorrectable Parity", "0");
        kv(out, 3, "SRAM Uncorrectable SEC-DED", "0");
        kv(
            out,
            3,
            "DRAM Correctable",
            Long.toString(volatileScope ? gpu.correctedVolatile : gpu.correctedAggregate));
        kv(
            out,
            3,
            "DRAM Uncorrectable",
            Long.toString(volatileScope ? gpu.uncorrectedVolatile : gpu.uncorrectedAggregate));
      }
      section(out, 1, "Retired Pages");
      kv(out, 2, "Single Bit ECC", "N/A");
      kv(out, 2, "Double Bit ECC", "N/A");
      kv(out, 2, "Pending Page Blacklist", "N/A");
      section(out, 1, "Remapped Rows");
      kv(out, 2, "Correctable Error", Long.toString(gpu.remappedCorrectable));
      kv(out, 2, "Uncorrectable Error", Long.toString(gpu.remappedUncorrectable));
      kv(out, 2, "Pending", gpu.remapPending ? "Yes" : "No");
      kv(out, 2, "Remapping Failure Occurred", "No");
      section(out, 1, "Temperature");
      kv(out, 2, "GPU Current Temp", temperature(gpu) + " C");
      kv(out, 2, "Memory Current Temp", (temperature(gpu) + 7) + " C");
      out.append('\n');
    }
    return out.toString();
  }

  private static final java.time.format.DateTimeFormatter QUERY_TIME =
      java.time.format.DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", java.util.Locale.ROOT)
          .withZone(FabricSimulator.LOG_ZONE);

  private static void section(StringBuilder out, int level, String name) {
    out.append("    ".repeat(level)).append(name).append('\n');
  }

  private static void kv(StringBuilder out, int level, String key, String value) {
    String indent = "    ".repeat(level);
    out.append(String.format("%-42s: %s\n", indent + key, value));
  }

  /**
   * {@code nvidia-smi --help-query-gpu}: the R535 layout (a quoted name, aliases joined by {@code
   * or}, then a description line), listing every field {@link GpuQueryFields#WANTED} asks for plus
   * a few common ones.
   */
  static String helpQueryGpu() {
    return String.join(
        "\n",
        "List of valid properties to query for the switch \"--query-gpu=\":",
        "",
        "\"timestamp\"",
        "The timestamp of when the query was made in format \"YYYY/MM/DD HH:MM:SS.msec\".",
        "",
        "\"driver_version\"",
        "The version of the installed NVIDIA display driver. This is an alphanumeric string.",
        "",
        "\"count\"",
        "The number of NVIDIA GPUs in the system.",
        "",
        "\"name\" or \"gpu_name\"",
        "The official product name of the GPU. This is an alphanumeric string. For all products.",
        "",
        "\"uuid\" or \"gpu_uuid\"",
        "This value is the globally unique immutable alphanumeric identifier of the GPU."
            + " It does not correspond to any physical label on the board.",
        "",
        "\"pci.bus_id\" or \"gpu_bus_id\"",
        "PCI bus id as \"domain:bus:device.function\", in hex.",
        "",
        "\"index\"",
        "Zero based index of the GPU. Can change at each boot.",
        "",
        "Section about ecc.mode properties",
        "A flag that indicates whether ECC support is enabled. May be either \"Enabled\" or"
            + " \"Disabled\". Changes to ECC mode require a reboot."
            + " Requires Inforom ECC object version 1.0 or higher.",
        "",
        "\"ecc.mode.current\"",
        "The ECC mode that the GPU is currently operating under.",
        "",
        "\"ecc.mode.pending\"",
        "The ECC mode that the GPU will operate under after the next reboot.",
        "",
        "Section about ecc.errors properties",
        "NVIDIA GPUs can provide error counts for various types of ECC errors.",
        "",
        "\"ecc.errors.corrected.volatile.total\"",
        "Total errors detected across entire chip.",
        "",
        "\"ecc.errors.corrected.aggregate.total\"",
        "Total errors detected across entire chip.",
        "",
        "\"ecc.errors.uncorrected.volatile.total\"",
        "Total errors detected across entire chip.",
        "",
        "\"ecc.errors.uncorrected.aggregate.total\"",
        "Total errors detected across entire chip.",
        "",
        "Section about retired_pages properties",
        "NVIDIA GPUs can retire pages of GPU device memory when they become unreliable.",
        "",
        "\"retired_pages.single_bit_ecc.count\" or \"retired_pages.sbe\"",
        "The number of GPU device memory pages that have been retired due to multiple single"
            + " bit ECC errors.",
        "",
        "\"retired_pages.double_bit.count\" or \"retired_pages.dbe\"",
        "The number of GPU device memory pages that have been retired due to a double bit ECC"
            + " error.",
        "",
        "\"retired_pages.pending\"",
        "Checks if any GPU device memory pages are pending retirement on the next reboot.",
        "",
        "Section about remapped_rows properties",
        "Information about remapped rows.",
        "",
        "\"remapped_rows.correctable\"",
        "The count of rows remapped due to correctable errors.",
        "",
        "\"remapped_rows.uncorrectable\"",
        "The count of rows remapped due to uncorrectable errors.",
        "",
        "\"remapped_rows.pending\"",
        "Whether a GPU reset is required to remap pending rows.",
        "",
        "\"remapped_rows.failure\"",
        "Whether a row remapping has failed in the past.",
        "",
        "\"temperature.gpu\"",
        " Core GPU temperature. in degrees C.",
        "",
        "\"temperature.memory\"",
        " HBM memory temperature. in degrees C.",
        "",
        "\"temperature.gpu.tlimit\"",
        " GPU T.Limit temperature. in degrees C.",
        "");
  }
}
