package io.fabricpulse.app.cli;

import io.fabricpulse.app.demo.Demo;
import io.fabricpulse.app.demo.DemoBridges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricpulse demo}: the whole pipeline in one JVM on a simulated cluster. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the whole pipeline in one JVM on a simulated cluster with injected faults.",
      "",
      "Starts an in-process Kafka broker (KRaft), an in-process schema registry, an",
      "embedded QuestDB (or a real InfluxDB), the streams application and the sink,",
      "and feeds them from the node agents of a seeded simulated cluster. Prints live",
      "throughput, the busiest ports and alerts; ends with a summary that checks data",
      "flowed end to end and every injected fault was detected exactly (nothing",
      "missed, nothing extra)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse demo",
      "  fabricpulse demo --duration 60s --nodes 32 --seed 7",
      "  INFLUX_TOKEN=... fabricpulse demo --influx-url http://influxdb:8086",
      "  FABRICPULSE_WECOM_KEY=... fabricpulse demo --duration 60s \\",
      "      --wecom-webhook https://qyapi.weixin.qq.com/cgi-bin/webhook/send"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:data flowed end to end and detection was exact",
      "1:findings: data did not flow, detection was not exact, the pipeline did not catch up,",
      "  or an alert did not reach a robot",
      "2:usage error"
    })
public final class DemoCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--duration",
      converter = DurationConverter.class,
      description = "Run this long (e.g. 60s, 10m), then print the summary. Default: until Ctrl-C.")
  Duration duration;

  @Option(
      names = "--nodes",
      defaultValue = "16",
      description = "Simulated nodes, 8 HCAs each (default ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the simulation (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--speed",
      defaultValue = "20",
      description = "Simulated seconds per real second (default ${DEFAULT-VALUE}).")
  double speed;

  @Option(
      names = "--cluster",
      defaultValue = "demo",
      description = "Cluster name (default ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--data-dir",
      description =
          "Where Kafka, Streams and QuestDB keep state. Default: a temporary directory, removed at exit.")
  Path dataDir;

  @Option(
      names = "--influx-url",
      description =
          "Write to this InfluxDB 2.x/3.x instead of the embedded QuestDB (token from INFLUX_TOKEN).")
  String influxUrl;

  @Option(
      names = "--influx-org",
      defaultValue = "fabricpulse",
      description = "InfluxDB organisation (default ${DEFAULT-VALUE}).")
  String influxOrg;

  @Option(
      names = "--influx-bucket",
      defaultValue = "fabricpulse",
      description = "InfluxDB bucket (default ${DEFAULT-VALUE}).")
  String influxBucket;

  @Option(
      names = "--wecom-webhook",
      paramLabel = "URL",
      description = {
        "Deliver the alerts to this WeCom robot endpoint (without ?key=;",
        "the key from FABRICPULSE_WECOM_KEY)."
      })
  String wecomWebhook;

  @Option(
      names = "--dingtalk-webhook",
      paramLabel = "URL",
      description = {
        "Deliver the alerts to this DingTalk robot endpoint (without ?access_token=;",
        "token from FABRICPULSE_DINGTALK_TOKEN, signing secret and keyword from",
        "FABRICPULSE_DINGTALK_SECRET and FABRICPULSE_DINGTALK_KEYWORD when set)."
      })
  String dingtalkWebhook;

  @Option(
      names = "--status-port",
      defaultValue = "8090",
      description = {
        "Serve the live status page on 127.0.0.1,",
        "port PORT (default ${DEFAULT-VALUE}; 0: no page)."
      })
  int statusPort;

  @Option(
      names = "--status-token-file",
      paramLabel = "FILE",
      description = {
        "File holding the token every status page request",
        "must carry (Authorization: Bearer TOKEN, or a",
        "browser opens /?token=TOKEN once)."
      })
  Path statusTokenFile;

  @Option(
      names = "--corrupt-rate",
      paramLabel = "RATE",
      defaultValue = "0",
      description = {
        "Also write bad records (random bytes, unknown schema id,",
        "truncated Avro, another record type) to every input topic,",
        "RATE of the records published, e.g. 0.01; the summary counts",
        "them and their dead letters (default ${DEFAULT-VALUE}: none)."
      })
  double corruptRate;

  @Override
  public Integer call() throws Exception {
    java.util.Map<String, String> env = System.getenv();
    if (!(corruptRate >= 0) || corruptRate > 0.5) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--corrupt-rate must be in [0, 0.5]");
    }
    for (String[] required :
        new String[][] {
          {wecomWebhook, "--wecom-webhook", DemoBridges.WECOM_KEY_ENV},
          {dingtalkWebhook, "--dingtalk-webhook", DemoBridges.DINGTALK_TOKEN_ENV}
        }) {
      if (required[0] == null) {
        continue;
      }
      if (required[0].contains("key=") || required[0].contains("access_token=")) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(),
            required[1]
                + ": give the URL without its secret; the secret comes from "
                + required[2]);
      }
      if (!required[0].startsWith("http://") && !required[0].startsWith("https://")) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), required[1] + ": '" + required[0] + "' is not an http(s):// URL");
      }
      if (env.get(required[2]) == null || env.get(required[2]).isBlank()) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), required[1] + ": needs the environment variable " + required[2]);
      }
    }
    DemoBridges.Targets targets =
        new DemoBridges.Targets(
            wecomWebhook,
            wecomWebhook == null ? null : env.get(DemoBridges.WECOM_KEY_ENV),
            dingtalkWebhook,
            dingtalkWebhook == null ? null : env.get(DemoBridges.DINGTALK_TOKEN_ENV),
            dingtalkWebhook == null ? null : blankToNull(env.get(DemoBridges.DINGTALK_SECRET_ENV)),
            dingtalkWebhook == null
                ? null
                : blankToNull(env.get(DemoBridges.DINGTALK_KEYWORD_ENV)));
    if (nodes < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--nodes must be at least 1");
    }
    if (!(speed > 0) || speed > 1000) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--speed must be in (0, 1000]");
    }
    Demo.Settings settings =
        new Demo.Settings(
            cluster,
            nodes,
            seed,
            speed,
            duration,
            dataDir,
            influxUrl,
            influxOrg,
            influxBucket,
            System.getenv("INFLUX_TOKEN"),
            targets,
            statusPort);
    io.fabricpulse.schemas.http.BearerToken statusToken = null;
    if (statusTokenFile != null) {
      try {
        statusToken = io.fabricpulse.schemas.http.BearerToken.fromFile(statusTokenFile);
      } catch (java.io.IOException e) {
        throw new CliFailure(
            ExitCodes.USAGE,
            "--status-token-file " + statusTokenFile + ": cannot read: " + e.getMessage());
      }
    }
    return new Demo(settings, System.out)
        .withCorruptRate(corruptRate)
        .withStatusToken(statusToken)
        .run();
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
