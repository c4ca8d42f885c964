package io.github.deferlock.lock;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A throwaway CA and server certificates made with the {@code openssl} CLI, for TLS tests. */
final class TestCerts {
    static final String STORE_PASSWORD = "changeit";

    final Path dir;
    final Path caCert;

    private TestCerts(Path dir) {
        this.dir = dir;
        this.caCert = dir.resolve("ca.crt");
    }

    /** True when an {@code openssl} binary runs. */
    static boolean opensslAvailable() {
        try {
            Process p = new ProcessBuilder("openssl", "version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Makes a CA in a new temp dir. */
    static TestCerts newCa() throws IOException {
        TestCerts certs = new TestCerts(Files.createTempDirectory("deferlock-tls-"));
        certs.openssl(
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=deferlock-test-ca");
        return certs;
    }

    /**
     * Issues a server certificate signed by the CA with {@code subjectAltName}, e.g. {@code IP:127.0.0.1};
     * returns {cert, key}.
     */
    Path[] issue(String name, String subjectAltName) throws IOException {
        Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=" + subjectAltName + "\n");
        openssl(
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".csr",
                "-subj",
                "/CN=" + name);
        openssl(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                name + ".crt",
                "-days",
                "2",
                "-extfile",
                name + ".ext");
        return new Path[] {dir.resolve(name + ".crt"), dir.resolve(name + ".key")};
    }

    /** Writes a PKCS12 trust store (password {@link #STORE_PASSWORD}) holding only this CA; returns it. */
    Path trustStore() throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caCert)) {
            trust.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path file = dir.resolve("trust.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            trust.store(out, STORE_PASSWORD.toCharArray());
        }
        return file;
    }

    private void openssl(String... args) throws IOException {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
