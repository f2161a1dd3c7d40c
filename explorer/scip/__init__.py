"""`explorer scip`: the cross-language graph as a SCIP index, the format Sourcegraph and other
code-intelligence platforms read.

scip_pb2.py and scip_pb2.pyi are generated, never edited: from scip.proto of
github.com/sourcegraph/scip at commit e1e47bf, by grpcio-tools 1.85.1 (protoc for protobuf
7.35.1):

    python -m grpc_tools.protoc -I <scip checkout> --python_out=explorer/scip --pyi_out=explorer/scip scip.proto

symbols.py names definitions as SCIP symbols; index.py reads the index into documents,
occurrences, symbol information and relationships.
"""
