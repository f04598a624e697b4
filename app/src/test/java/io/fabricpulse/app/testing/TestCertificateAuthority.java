package io.fabricpulse.app.testing;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made at test time with the JDK's {@code keytool} (nothing of it is
 * committed): its key in a PKCS12 store of its own, a broker key pair for 127.0.0.1 it signed, and
 * a truststore holding only the CA's certificate, as an operator's client would have. Two of them
 * make the "untrusted CA" case: a client trusting one does not accept a broker signed by the other.
 * The keytool steps are those of https://kafka.apache.org/documentation/#security_ssl_key with
 * keytool's own -gencert instead of openssl.
 */
public final class TestCertificateAuthority {
  private static final String KEY = "-keyalg EC -groupname secp256r1 -validity 2";

  private final Path dir;
  private final String name;
  private final String storePassword;

  private TestCertificateAuthority(Path dir, String name, String storePassword) {
    this.dir = dir;
    this.name = name;
    this.storePassword = storePassword;
  }

  /** Creates the CA's key and self-signed certificate in {@code dir}. */
  public static TestCertificateAuthority create(Path dir, String name, String storePassword)
      throws IOException {
    Files.createDirectories(dir);
    TestCertificateAuthority ca = new TestCertificateAuthority(dir, name, storePassword);
    ca.keytool(
        "-genkeypair -keystore " + ca.caStore() + " -storetype PKCS12 -alias ca",
        "-dname",
        "CN=" + name,
        KEY + " -ext bc:c -ext ku:c=keyCertSign,cRLSign");
    ca.keytool("-exportcert -rfc -keystore " + ca.caStore() + " -alias ca -file " + ca.caPem());
    return ca;
  }

  /**
   * A PKCS12 keystore holding a key pair for a server at 127.0.0.1 (subject alternative name
   * IP:127.0.0.1, so clients' hostname verification passes) with its chain to this CA.
   */
  public EmbeddedKafkaBroker.Tls brokerKeystore() throws IOException {
    return signedKeystore(
        "broker", "127.0.0.1", "-ext san=ip:127.0.0.1 -ext eku=serverAuth,clientAuth");
  }

  /**
   * A PKCS12 keystore holding a client's key pair (subject {@code CN=<cn>}, extended key usage
   * clientAuth) with its chain to this CA: what a client presents to a listener that requires
   * client certificates.
   */
  public EmbeddedKafkaBroker.Tls clientKeystore(String cn) throws IOException {
    return signedKeystore(cn, cn, "-ext eku=clientAuth");
  }

  /**
   * {@code <name>.p12}: a new key pair for subject {@code CN=<cn>}, its certificate signed by this
   * CA with {@code extensions}, and the CA's certificate.
   */
  private EmbeddedKafkaBroker.Tls signedKeystore(String name, String cn, String extensions)
      throws IOException {
    Path store = dir.resolve(name + ".p12");
    Path request = dir.resolve(name + ".csr");
    Path signed = dir.resolve(name + ".pem");
    keytool(
        "-genkeypair -keystore " + store + " -storetype PKCS12 -alias " + name,
        "-dname",
        "CN=" + cn,
        KEY);
    keytool("-certreq -keystore " + store + " -alias " + name + " -file " + request);
    keytool(
        "-gencert -rfc -keystore " + caStore() + " -alias ca -infile " + request,
        "-outfile " + signed + " -validity 2 " + extensions);
    keytool("-importcert -noprompt -keystore " + store + " -alias ca -file " + caPem());
    keytool("-importcert -noprompt -keystore " + store + " -alias " + name + " -file " + signed);
    return new EmbeddedKafkaBroker.Tls(store, "PKCS12", storePassword);
  }

  /** A PKCS12 truststore with only this CA's certificate, protected by {@code password}. */
  public Path truststore(String password) throws IOException {
    Path store = dir.resolve("truststore.p12");
    Files.deleteIfExists(store);
    run(
        List.of(
            keytoolPath(),
            "-importcert",
            "-noprompt",
            "-keystore",
            store.toString(),
            "-storetype",
            "PKCS12",
            "-storepass",
            password,
            "-alias",
            "ca",
            "-file",
            caPem().toString()));
    return store;
  }

  private Path caStore() {
    return dir.resolve("ca.p12");
  }

  private Path caPem() {
    return dir.resolve("ca.pem");
  }

  /** keytool with the store password; the -dname value is its own argument (it has spaces). */
  private void keytool(String... parts) throws IOException {
    List<String> args = new ArrayList<>();
    args.add(keytoolPath());
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].equals("-dname")) {
        args.add(parts[i]);
        args.add(parts[++i]);
      } else {
        args.addAll(List.of(parts[i].trim().split("\\s+")));
      }
    }
    args.addAll(List.of("-storepass", storePassword));
    run(args);
  }

  private static String keytoolPath() {
    return Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
  }

  private void run(List<String> args) throws IOException {
    Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
    String output;
    try {
      output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("keytool did not finish in 60 s: " + args.get(1));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(name + ": keytool " + args.get(1) + " failed: " + output);
    }
  }
}
