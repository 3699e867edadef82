// Written by Fuzz/make-seeds with the committed seeds it signed; the private keys were not kept.

/// The fixed certificates the harnesses verify against, so that seeds signed by them reach every
/// check a genuine payload reaches.
enum FuzzCertificates {
  /// The root of the test chain that signed the Apple seeds (leaf and intermediate carry Apple's
  /// marker OIDs), trusted beside Apple's public roots.
  static let appleTestRoot = """
    -----BEGIN CERTIFICATE-----
    MIIBUTCB+KADAgECAgEBMAoGCCqGSM49BAMCMCAxHjAcBgNVBAMMFVRvbGxnYXRl
    IEZ1enogUm9vdCBDQTAeFw0yNjExMjMwMDAwMDBaFw00NjExMTkwMDAwMDBaMCAx
    HjAcBgNVBAMMFVRvbGxnYXRlIEZ1enogUm9vdCBDQTBZMBMGByqGSM49AgEGCCqG
    SM49AwEHA0IABMJY5JMbHh9xobCxB1KrqT3ZErOdk7z2ih43ZZSkaxU76MQ28PO5
    CslDKlNkOkOzdA++JKOLFA4EJJ7fM2qKmwOjIzAhMA8GA1UdEwEB/wQFMAMBAf8w
    DgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMCA0gAMEUCIQDU67U4ptqMVl+QE6fi
    igZ28Ke1JsBL/rq2gPksbsBVxgIgKGFupSVXsXb+iu1Mn6Nhlo6z+DtmeJpTBx6t
    +yOTyFk=
    -----END CERTIFICATE-----
    """

  /// Stands for the certificate at an SNS message's SigningCertURL: it signed the Amazon seeds.
  static let snsSigning = """
    -----BEGIN CERTIFICATE-----
    MIICsTCCAZmgAwIBAgIBBDANBgkqhkiG9w0BAQsFADAcMRowGAYDVQQDDBFzbnMu
    YW1hem9uYXdzLmNvbTAeFw0yNjExMjMwMDAwMDBaFw00NjExMTkwMDAwMDBaMBwx
    GjAYBgNVBAMMEXNucy5hbWF6b25hd3MuY29tMIIBIjANBgkqhkiG9w0BAQEFAAOC
    AQ8AMIIBCgKCAQEA1nxLvwyQfSadx5+KF/LeTzqFVrbsGxyGsiSxQtaJk4g85zmF
    GTanJMj6ewUQOZrso2foNA7rm0XrrASbLTjCfr1fpYNiOkaRpLGzIB+79cMvnjGb
    bljTqb2ey+5Ct4aZEmFQYwjcvbRNqMIxi6UQmiTPAZK1B08QgyFeEsbt1zT4zGVX
    BDsI9G4WQMjMolB+N9oZJkECDzGaf43SS57hn00t+xY06offUB9Tw5DnIieDbDtc
    OBoRNaes0Q+uHT7b3NfJ1K36ltm9R6s4x5JuNDd/6RpBUQ2Y3ppszM30u1GKKVoT
    pD4Y5ZWM49N5g79nw5FXiLo7Cw1cVxK/Q3KVxwIDAQABMA0GCSqGSIb3DQEBCwUA
    A4IBAQC627DJwG9vSSyFils40WhMHHdKzBEJBgjb5IwfuPGT/JyewolM3/7aoJzH
    cVRCoO9agfqGdjkkMX5SHT3OLOPYZsrYCKWZyjnQjBdnwJz0m1J+WUWt/R01RtJc
    oIJ5AKcJ46t3ch2jjBl+bnrepA7KKE9l+jn6EPUe2rZq65RtZDSHYJ/4RF/ZWrdC
    jeaip+YOLSAY9PEyNs34RPt0pL2ZVTjvkGhtfkntnJqhB8wZrauhDS21+QXXc2vy
    VGZogF/8FTT4MgytT9gVIL3stE5QQ30GjyrRfroFRuiLozJ3QJDVkYOu9w9G+8ec
    0zL2K/L18IdbXW/+LIFJd7T+hreV
    -----END CERTIFICATE-----
    """
}
