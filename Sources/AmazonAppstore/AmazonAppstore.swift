/// The Amazon Appstore's formats and APIs, as `AppStore` is Apple's and `GooglePlay` Google's:
/// the Receipt Verification Service (RVS) client and its receipt model, the mapping of receipts to
/// Core, Real-Time Notifications (RTN) and the Amazon SNS messages that carry them, with SNS
/// signature verification. It knows nothing of the worker.
public enum AmazonAppstore {
  /// Where the production RVS answers.
  public static let productionRVSBaseURL = "https://appstore-sdk.amazon.com"
  /// Where the RVS cloud sandbox answers (receipts of App Tester and Live App Testing purchases).
  public static let sandboxRVSBaseURL = "https://appstore-sdk.amazon.com/sandbox"
}
