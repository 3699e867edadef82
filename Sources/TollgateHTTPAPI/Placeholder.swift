// TollgateHTTPAPI: placeholder until its first file lands (issue 28).
enum TollgateHTTPAPIModule {}
