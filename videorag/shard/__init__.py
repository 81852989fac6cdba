"""Search across machines: the search snapshot split into shards by video, each served by a Ray
Serve deployment (replicas for throughput), and a router that fans a query out and merges what
the shards find into the hits one box would give.

- `split`: `videorag shard INDEX --shards N` writes N shard snapshots under `INDEX/shards/`,
  videos spread so the shards hold about as many segments; every shard's BM25 keeps the whole
  collection's idf and average length.
- `node`: what one shard does for a query (`ShardNode`): its statistics and leaders (round 1),
  then its best videos scored with the collection's constants, with moments from the router's
  floor up (round 2).
- `router`: `Router` asks every shard, waits at most a deadline, merges (`searcher.pick`);
  a shard that is down or late leaves the answer partial and named, never a hang.
- `ray_serve`: the shards as Ray Serve deployments, and the clients the router calls.

Exact: the shardable methods (`METHODS.traits(name)`: textvideorag, bm25, dense) rank a
sharded index as the whole one, but for ANN levels, whose candidates each shard finds on its own.
"""
