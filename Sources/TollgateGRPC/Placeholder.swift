// TollgateGRPC: placeholder until its first file lands (issue 28).
enum TollgateGRPCModule {}
