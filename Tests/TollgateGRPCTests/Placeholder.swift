// TollgateGRPCTests: placeholder until its first test lands (issue 28).
enum TollgateGRPCTestsPlaceholder {}
