package dev.runkora.vk;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** The kubelet serving certificate: from files, or self-signed in memory (ECDSA P-256). */
final class Certificates {
  static final char[] PASSWORD = "vk-sandbox".toCharArray();

  private Certificates() {}

  /**
   * The key store to serve with: the files when both are readable regular files, otherwise a
   * self-signed certificate (CN vk-sandbox; SANs the node name, the node IP and 127.0.0.1; valid
   * from an hour ago for ten years; serverAuth).
   */
  static KeyStore serving(VkConfig config) {
    try {
      if (readable(config.tlsCert()) && readable(config.tlsKey())) {
        return fromFiles(Path.of(config.tlsCert()), Path.of(config.tlsKey()));
      }
      return selfSigned(config.nodeName(), config.nodeIp());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "cannot set up the kubelet TLS certificate: " + e.getMessage(), e);
    }
  }

  static boolean readable(String file) {
    if (file == null || file.isEmpty()) {
      return false;
    }
    Path p = Path.of(file);
    return Files.isRegularFile(p) && Files.isReadable(p);
  }

  static KeyStore selfSigned(String nodeName, String nodeIp)
      throws GeneralSecurityException, IOException {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
    KeyPair pair = gen.generateKeyPair();
    Instant now = Instant.now();
    X500Name subject = new X500Name("CN=vk-sandbox");
    List<GeneralName> sans = new ArrayList<>();
    sans.add(new GeneralName(GeneralName.dNSName, nodeName));
    if (!nodeIp.isEmpty()) {
      sans.add(new GeneralName(GeneralName.iPAddress, nodeIp));
    }
    if (!"127.0.0.1".equals(nodeIp)) {
      sans.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }
    JcaX509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            subject,
            new BigInteger(63, new SecureRandom()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(3650))),
            subject,
            pair.getPublic());
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(sans.toArray(GeneralName[]::new)));
    b.addExtension(
        Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    b.addExtension(
        Extension.keyUsage,
        true,
        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    ContentSigner signer;
    try {
      signer = new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate());
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
    X509CertificateHolder holder = b.build(signer);
    X509Certificate cert = new JcaX509CertificateConverter().getCertificate(holder);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("kubelet", pair.getPrivate(), PASSWORD, new Certificate[] {cert});
    return ks;
  }

  static KeyStore fromFiles(Path certFile, Path keyFile)
      throws GeneralSecurityException, IOException {
    List<X509Certificate> chain = readCertificates(certFile);
    if (chain.isEmpty()) {
      throw new GeneralSecurityException("no certificate in " + certFile);
    }
    PrivateKey key = readKey(keyFile);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("kubelet", key, PASSWORD, chain.toArray(Certificate[]::new));
    return ks;
  }

  static List<X509Certificate> readCertificates(Path file)
      throws GeneralSecurityException, IOException {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> all = cf.generateCertificates(in);
      List<X509Certificate> out = new ArrayList<>();
      all.forEach(c -> out.add((X509Certificate) c));
      return out;
    }
  }

  static List<X509Certificate> readCertificates(byte[] pem) throws GeneralSecurityException {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    List<X509Certificate> out = new ArrayList<>();
    cf.generateCertificates(new java.io.ByteArrayInputStream(pem))
        .forEach(c -> out.add((X509Certificate) c));
    return out;
  }

  static PrivateKey readKey(Path file) throws GeneralSecurityException, IOException {
    try (PEMParser parser = new PEMParser(Files.newBufferedReader(file))) {
      Object o = parser.readObject();
      JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
      if (o instanceof PEMKeyPair kp) {
        return conv.getKeyPair(kp).getPrivate();
      }
      if (o instanceof org.bouncycastle.asn1.pkcs.PrivateKeyInfo info) {
        return conv.getPrivateKey(info);
      }
      throw new GeneralSecurityException("no private key in " + file);
    }
  }
}
