/** Store records → the resources of http-interface.md. */
import type { Brand, Channel, Collection, Media, User } from '../domain/schemas.js';
import { formatTimestamp } from '../domain/timestamps.js';
import type { BrandRecord, ChannelRecord, CollectionRecord, MediaRecord, UserRecord } from '../ports.js';

export function presentUser(user: UserRecord): User {
  return {
    id: user.id,
    name: user.name,
    joinedAt: formatTimestamp(user.joinedAtMs),
    timezone: user.timezone,
  };
}

export function presentBrand(brand: BrandRecord): Brand {
  return {
    id: brand.id,
    title: brand.title,
    description: brand.description,
    timezone: brand.timezone,
    createdAt: formatTimestamp(brand.createdAtMs),
    updatedAt: formatTimestamp(brand.updatedAtMs),
  };
}

export function presentChannel(channel: ChannelRecord): Channel {
  return {
    id: channel.id,
    name: channel.name,
    status: channel.status,
    type: channel.type,
    createdAt: formatTimestamp(channel.createdAtMs),
    updatedAt: formatTimestamp(channel.updatedAtMs),
  };
}

export function presentCollection(collection: CollectionRecord): Collection {
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    status: collection.status,
    createdAt: formatTimestamp(collection.createdAtMs),
    updatedAt: formatTimestamp(collection.updatedAtMs),
    channels: collection.channels.map(presentChannel),
  };
}

export function presentMedia(media: MediaRecord): Media {
  return { id: media.id, type: media.type, size: media.size };
}
